#include "cli/sreport_calc.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "acct/acct_record.h"

namespace sluice {

int64_t Overlap(int64_t a, int64_t b, int64_t start, int64_t end, int64_t now) {
  if (a <= 0) return 0;
  if (b <= 0) b = now;
  int64_t lo = std::max(a, start), hi = std::min(b, end);
  return hi > lo ? hi - lo : 0;
}

int64_t TresCount(const AcctJob& j, const std::string& tres) {
  if (tres == "gres/gpu") return j.alloc_gpus();
  if (tres == "node") return j.nnodes();
  return j.alloc_cpus();
}

int64_t TresCount(const NodeEventRecord& e, const std::string& tres) {
  if (tres == "gres/gpu") return e.gpus();
  if (tres == "node") return 1;
  return e.cpus();
}

Utilization ClusterUtilization(const std::vector<AcctJob>& jobs, int64_t capacity,
                               const std::string& tres, int64_t start, int64_t end, int64_t now,
                               const std::vector<NodeEventRecord>& events) {
  Utilization u;
  for (const AcctJob& j : jobs) {
    u.allocated += TresCount(j, tres) * Overlap(j.start_time(), j.end_time(), start, end, now);
  }
  for (const NodeEventRecord& e : events) {
    int64_t v = TresCount(e, tres) * Overlap(e.start_time(), e.end_time(), start, end, now);
    (e.state() == "MAINT" ? u.planned_down : u.down) += v;
  }
  u.reported = capacity * std::max<int64_t>(0, std::min(end, std::max(now, start)) - start);
  if (u.allocated > u.reported) u.reported = u.allocated;
  int64_t excess = u.allocated + u.down + u.planned_down - u.reported;
  if (excess > 0) {
    int64_t cut = std::min(excess, u.down);
    u.down -= cut;
    u.planned_down -= std::min(excess - cut, u.planned_down);
  }
  u.idle = std::max<int64_t>(0, u.reported - u.allocated - u.down - u.planned_down - u.reserved);
  return u;
}

namespace {

// The gres/gpuutil percent of a TRES usage string (-1: none).
int64_t GpuUtilPct(const std::string& tres) {
  const std::string key = "gres/gpuutil=";
  size_t at = tres.find(key);
  return at == std::string::npos ? -1 : std::atoll(tres.c_str() + at + key.size());
}

}  // namespace

int64_t GpuBusySeconds(const AcctJob& j, const std::vector<const AcctStep*>& steps, int64_t start,
                       int64_t end, int64_t now) {
  int64_t srun = 0, batch = -1;
  bool srun_sampled = false;
  for (const AcctStep* s : steps) {
    int64_t pct = GpuUtilPct(s->tres_usage_in_ave());
    if (pct < 0) continue;
    if (s->step_id() >= 0) {
      srun_sampled = true;
      srun += pct * Overlap(s->start_time(), s->end_time(), start, end, now) / 100;
    } else if (s->step_id() == acct::kBatchStep) {
      batch = pct * Overlap(j.start_time(), j.end_time(), start, end, now) / 100;
    }
  }
  return srun_sampled ? srun : std::max<int64_t>(0, batch);
}

std::vector<UserUsage> TopUsers(const std::vector<AcctJob>& jobs, const std::string& tres,
                                int64_t start, int64_t end, int64_t now, size_t top,
                                const std::vector<AcctStep>& steps) {
  std::map<std::pair<int64_t, int32_t>, std::vector<const AcctStep*>> by_attempt;
  for (const AcctStep& s : steps) by_attempt[{s.job_id(), s.attempt()}].push_back(&s);
  std::map<std::pair<std::string, std::string>, int64_t> used;
  for (const AcctJob& j : jobs) {
    int64_t v = tres == "gres/gpuutil"
                    ? GpuBusySeconds(j, by_attempt[{j.job_id(), j.attempt()}], start, end, now)
                    : TresCount(j, tres) * Overlap(j.start_time(), j.end_time(), start, end, now);
    if (v > 0) used[{j.user(), j.account()}] += v;
  }
  std::vector<UserUsage> out;
  for (const auto& [k, v] : used) out.push_back({k.first, k.second, v});
  std::sort(out.begin(), out.end(), [](const UserUsage& a, const UserUsage& b) {
    return a.used != b.used ? a.used > b.used : a.user < b.user;
  });
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace sluice
