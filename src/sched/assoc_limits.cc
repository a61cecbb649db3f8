#include "sched/assoc_limits.h"

#include <fmt/format.h>

#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice::sched {
namespace {

const std::vector<int>* ScopesOf(const LimitsInput& in, int64_t job_id) {
  auto it = in.job_scopes.find(job_id);
  return it == in.job_scopes.end() ? nullptr : &it->second;
}

bool Over(int64_t limit, int64_t value) { return limit >= 0 && value > limit; }

std::string P(const LimitScope& s) { return s.qos ? "QOS" : "Assoc"; }

// The first TRES of `t` above `limit`: its reason word ("Cpu", "Mem", "Node", "GRES"),
// its TRES name, the limit and the value (word "" when none is above).
struct TresHit {
  const char* word = "";
  const char* tres = "";
  int64_t limit = 0;
  int64_t value = 0;
};
TresHit TresOver(const TresLimit& limit, const Tres& t) {
  if (Over(limit.cpu, t.cpu)) return {"Cpu", "cpu", limit.cpu, t.cpu};
  if (Over(limit.mem_mb, t.mem_mb)) return {"Mem", "mem", limit.mem_mb, t.mem_mb};
  if (Over(limit.node, t.node)) return {"Node", "node", limit.node, t.node};
  if (Over(limit.gpu, t.gpu)) return {"GRES", "gres/gpu", limit.gpu, t.gpu};
  return {};
}

int64_t Get(const Tres& t, std::string_view tres) {
  if (tres == "cpu") return t.cpu;
  if (tres == "mem") return t.mem_mb;
  if (tres == "node") return t.node;
  return t.gpu;
}

Tres Plus(Tres a, const Tres& b) {
  a.cpu += b.cpu;
  a.mem_mb += b.mem_mb;
  a.node += b.node;
  a.gpu += b.gpu;
  return a;
}

std::string GrpTresReason(const LimitScope& s, const char* what) {
  std::string w = what;
  if (w == "GRES") return P(s) + "GrpGRES";
  return P(s) + "Grp" + w + "Limit";
}

std::string PerJobReason(const LimitScope& s, const char* what) {
  std::string w = what;
  if (w == "GRES") return P(s) + "MaxGRESPerJob";
  if (w == "Mem") return P(s) + "MaxMemPerJob";
  return P(s) + "Max" + w + "PerJobLimit";
}

std::string PerUserReason(const char* what) {
  std::string w = what;
  if (w == "GRES") return "QOSMaxGRESPerUser";
  if (w == "Mem") return "QOSMaxMemoryPerUser";
  return "QOSMax" + w + "PerUserLimit";
}

}  // namespace

Expected<TresLimit> MergeTresLimit(const TresLimit& base, std::string_view s) {
  TresLimit t = base;
  for (std::string_view sv : Split(s, ',')) {
    std::string item(Trim(sv));
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) return InvalidArgument(fmt::format("Invalid TRES '{}'", item));
    std::string key = ToLower(item.substr(0, eq));
    std::string value = item.substr(eq + 1);
    int64_t v = -1;
    if (value != "-1") {
      if (key == "mem") {
        auto mb = ParseMemoryMb(value);
        if (!mb.ok()) return InvalidArgument(fmt::format("Invalid TRES value '{}'", item));
        v = *mb;
      } else {
        if (!ParseNonNegative(value, &v))
          return InvalidArgument(fmt::format("Invalid TRES value '{}'", item));
      }
    }
    if (key == "cpu")
      t.cpu = v;
    else if (key == "mem")
      t.mem_mb = v;
    else if (key == "node")
      t.node = v;
    else if (key == "gres/gpu" || key.rfind("gres/gpu:", 0) == 0)
      t.gpu = v;
    else
      return InvalidArgument(fmt::format("Invalid TRES '{}'", item));
  }
  return t;
}

Expected<TresLimit> ParseTresLimit(std::string_view s) { return MergeTresLimit(TresLimit{}, s); }

std::string FormatTresLimit(const TresLimit& t) {
  std::vector<std::string> parts;
  if (t.cpu >= 0) parts.push_back(fmt::format("cpu={}", t.cpu));
  if (t.mem_mb >= 0) parts.push_back("mem=" + FormatMemoryMb(t.mem_mb));
  if (t.node >= 0) parts.push_back(fmt::format("node={}", t.node));
  if (t.gpu >= 0) parts.push_back(fmt::format("gres/gpu={}", t.gpu));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

Tres TresOf(const JobRequest& job) {
  Tres t;
  t.node = job.num_nodes;
  t.cpu = static_cast<int64_t>(job.num_nodes) * job.cpus_per_node;
  t.mem_mb = static_cast<int64_t>(job.num_nodes) * job.mem_per_node_mb;
  t.gpu = static_cast<int64_t>(job.num_nodes) * job.gpus_per_node;
  return t;
}

bool LimitsAnything(const LimitScope& s) {
  return s.max_jobs >= 0 || s.grp_jobs >= 0 || s.max_wall_s >= 0 || s.grp_tres.Any() ||
         s.max_tres_per_job.Any() || s.max_tres_per_user.Any() || s.grp_tres_mins.Any();
}

LimitsTracker::LimitsTracker(const LimitsInput& input) : input_(input) {
  counts_.resize(input.scopes.size());
  for (const auto& r : input.running) {
    if (const auto* scopes = ScopesOf(input, r.job_id)) Add(*scopes, r.tres, r.remaining_s);
  }
}

void LimitsTracker::Add(const std::vector<int>& scopes, const Tres& t, int64_t remaining_s) {
  for (int i : scopes) {
    if (i < 0 || i >= static_cast<int>(counts_.size())) continue;
    Count& c = counts_[i];
    ++c.jobs;
    c.tres = Plus(c.tres, t);
    c.run_cpu_min += static_cast<double>(t.cpu) * remaining_s / 60.0;
    c.run_gpu_min += static_cast<double>(t.gpu) * remaining_s / 60.0;
  }
}

std::string LimitsTracker::Check(const JobRequest& job) const { return Block(job).reason; }

LimitBlock LimitsTracker::Block(const JobRequest& job) const {
  const auto* scopes = ScopesOf(input_, job.job_id);
  if (!scopes) return {};
  const Tres t = TresOf(job);
  for (int i : *scopes) {
    if (i < 0 || i >= static_cast<int>(counts_.size())) continue;
    const LimitScope& s = input_.scopes[i];
    const Count& c = counts_[i];
    auto tres_block = [&](std::string reason, const char* key, const TresHit& h, bool grp) {
      const int64_t asks = Get(t, h.tres);
      return LimitBlock{std::move(reason), i, fmt::format("{}={}={}", key, h.tres, h.limit),
                        grp ? h.value - asks : 0, asks};
    };
    if (s.max_wall_s >= 0 && (job.time_limit_s <= 0 || job.time_limit_s > s.max_wall_s)) {
      return {P(s) + "MaxWallDurationPerJobLimit", i, fmt::format("MaxWall={}", s.max_wall_s / 60),
              0, job.time_limit_s / 60};
    }
    if (TresHit h = TresOver(s.max_tres_per_job, t); *h.word)
      return tres_block(PerJobReason(s, h.word), "MaxTRESPerJob", h, false);
    if (Over(s.max_jobs, c.jobs + 1)) {
      return {s.qos ? "QOSMaxJobsPerUserLimit" : "AssocMaxJobsLimit", i,
              fmt::format("MaxJobs={}", s.max_jobs), c.jobs, 1};
    }
    if (Over(s.grp_jobs, c.jobs + 1))
      return {P(s) + "GrpJobsLimit", i, fmt::format("GrpJobs={}", s.grp_jobs), c.jobs, 1};
    if (TresHit h = TresOver(s.grp_tres, Plus(c.tres, t)); *h.word)
      return tres_block(GrpTresReason(s, h.word), "GrpTRES", h, true);
    if (TresHit h = TresOver(s.max_tres_per_user, Plus(c.tres, t)); *h.word)
      return tres_block(PerUserReason(h.word), "MaxTRESPerUser", h, true);
    const double minutes = job.time_limit_s > 0 ? job.time_limit_s / 60.0 : 0;
    const double cpu_min = s.used_cpu_min + c.run_cpu_min + t.cpu * minutes;
    const double gpu_min = s.used_gpu_min + c.run_gpu_min + t.gpu * minutes;
    auto mins_block = [&](const char* reason, const char* tres, int64_t limit, double total,
                          double asks) {
      return LimitBlock{P(s) + reason, i, fmt::format("GrpTRESMins={}={}", tres, limit),
                        static_cast<int64_t>(total - asks), static_cast<int64_t>(asks)};
    };
    if (s.grp_tres_mins.cpu >= 0 && cpu_min > s.grp_tres_mins.cpu)
      return mins_block("GrpCPUMinutesLimit", "cpu", s.grp_tres_mins.cpu, cpu_min, t.cpu * minutes);
    if (s.grp_tres_mins.gpu >= 0 && gpu_min > s.grp_tres_mins.gpu) {
      return mins_block("GrpGRESMinutes", "gres/gpu", s.grp_tres_mins.gpu, gpu_min,
                        t.gpu * minutes);
    }
  }
  return {};
}

void LimitsTracker::Start(const JobRequest& job) {
  if (const auto* scopes = ScopesOf(input_, job.job_id))
    Add(*scopes, TresOf(job), job.time_limit_s);
}

}  // namespace sluice::sched
