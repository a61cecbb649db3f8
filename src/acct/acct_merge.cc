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
  for (const auto& s : live.steps) steps[{s.job_id, s.attempt, s.step_id}] = s;
  AcctData out;
  for (auto& [k, j] : jobs) out.jobs.push_back(std::move(j));
  for (auto& [k, s] : steps) {
    if (jobs.count({s.job_id, s.attempt})) out.steps.push_back(std::move(s));
  }
  return out;
}

}  // namespace sluice::acct
