#include "acct/acct_merge.h"

#include <map>
#include <tuple>

namespace sluice::acct {

AcctData MergeLive(AcctData stored, const AcctData& live) {
  std::map<std::pair<int64_t, int32_t>, AcctJobRecord> jobs;
  std::map<std::tuple<int64_t, int32_t, int32_t>, AcctStepRecord> steps;
  for (auto& j : stored.jobs) jobs[{j.job_id, j.attempt}] = std::move(j);
  for (auto& s : stored.steps) steps[{s.job_id, s.attempt, s.step_id}] = std::move(s);
  for (const auto& j : live.jobs) jobs[{j.job_id, j.attempt}] = j;
  for (const auto& s : live.steps) {
    AcctStepRecord& slot = steps[{s.job_id, s.attempt, s.step_id}];
    // The store may already hold usage the controller no longer keeps in memory.
    int64_t rss = s.max_rss_kb >= 0 ? s.max_rss_kb : slot.max_rss_kb;
    int64_t cpu = s.total_cpu_us >= 0 ? s.total_cpu_us : slot.total_cpu_us;
    std::string ave = s.tres_usage_in_ave.empty() ? slot.tres_usage_in_ave : s.tres_usage_in_ave;
    std::string max = s.tres_usage_in_max.empty() ? slot.tres_usage_in_max : s.tres_usage_in_max;
    slot = s;
    slot.max_rss_kb = rss;
    slot.total_cpu_us = cpu;
    slot.tres_usage_in_ave = std::move(ave);
    slot.tres_usage_in_max = std::move(max);
  }
  AcctData out;
  for (auto& [k, j] : jobs) out.jobs.push_back(std::move(j));
  for (auto& [k, s] : steps) {
    if (jobs.count({s.job_id, s.attempt})) out.steps.push_back(std::move(s));
  }
  return out;
}

}  // namespace sluice::acct
