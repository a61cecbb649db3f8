// Job arrays and dependencies as the commands show and select them.
//   ParseJobSelectors("12,44_3,44_[1-3],50_[1,4]") -> {12}, {44,{3}}, {44,{1,2,3}}, {50,{1,4}}
//     errors: "Invalid job id: x" (kInvalidArgument).
//   SelectorMatches: {44} matches job 44 and every task of array 44; {44,{3}} task 3 only.
//   AddSelectors: {44} -> job_ids 44; {44,{3}} -> array_tasks {44, [3]}.
//   ResolveSelectors: concrete job ids for the controller (array tasks looked up with
//     one GetJobs); tasks that do not exist are left out and named in `missing` ("44_9").
//   DisplayJobId: "45" (plain), "44_3" (array task), "44_[2-7%2]" (compressed pending tasks).
//   CompressPendingTasks: squeue/scontrol's view without -r: the pending tasks of one array
//     become one record (the first task's) with array_task_str "[2-7%2]" (throttle shown).
//   DependencyString: "afterok:11(unfulfilled)", "afterok:40(failed)", "(null)"; fulfilled
//     terms are left out, terms joined by ',' or '?'.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/api.h"
#include "common/status.h"
#include "types.pb.h"

namespace sluice {

struct JobSelector {
  int64_t id = 0;
  std::vector<int64_t> tasks;  // empty = the whole job / array
  std::string text;            // as typed
};

Expected<std::vector<JobSelector>> ParseJobSelectors(const std::string& s);
bool SelectorMatches(const JobSelector& sel, const JobInfo& job);
bool AnySelectorMatches(const std::vector<JobSelector>& sels, const JobInfo& job);
// Asks for the jobs `sels` name: whole jobs and arrays by id, array tasks by task (so a
// query for one task of a large array does not bring the whole array back).
void AddSelectors(const std::vector<JobSelector>& sels, GetJobsRequest* req);
struct ResolvedIds {
  std::vector<int64_t> whole;  // job or array ids, as typed (the controller expands arrays)
  std::vector<int64_t> exact;  // job ids of the selected array tasks (never expanded)
};
ResolvedIds ResolveSelectors(const std::vector<JobSelector>& sels, ClientApiInterface* api,
                             std::vector<std::string>* missing);

std::string DisplayJobId(const JobInfo& job);
// A heterogeneous job's component ids, "10-12" ("" for other jobs).
std::string HetJobIdSet(const JobInfo& job);
// In place: the first pending task of each array stands for all its pending tasks
// (array_task_str "[2-7%2]" when there are several), the others are removed. Records the
// controller already compressed are left as they are.
void CompressPendingTasks(std::vector<JobInfo*>* jobs);
std::string DependencyString(const JobInfo& job);

}  // namespace sluice
