// Scenario files: a small cluster, a few jobs and the answers computed by hand, so a new
// simulator/scheduler regression test is one new data file. Pure (text in, data out);
// RunScenario replays one under a policy and lists every mismatch.
//
// Format (one directive per line, `#` starts a comment, tokens are key=value):
//   policy fcfs [easy] [conservative]      the policies whose answers the file gives
//   nodes count=2 cpus=4 [gpus=0] [mem=0]  adds `count` identical nodes (may repeat)
//   job id=a submit=0 run=10 [limit=run] [nodes=1] [cpus=1] [gpus=0] [exclusive=0]
//       start=T | start=rejected | start=never   expected start (relative seconds)
//       [user=U] [account=A] [partition=P] [qos=Q] [nice=0]   multifactor priority inputs
//   expect KEY=VALUE ...                   metrics, with MetricFields' names and format
//   kind cpu|gpu                           which utilization is primary (default: gpu
//                                          when any node has GPUs)
// Multifactor priority (sim/priority_pass.h; without a `priority` line the order is FCFS
// and the lines below only name things):
//   priority [weight_age=0] [weight_fairshare=0] [weight_job_size=0] [weight_partition=0]
//            [weight_qos=0] [max_age=604800] [favor_small=0] [decay_half_life=0]
//                                          turns it on; decay_half_life 0 = no decay
//   assoc account=A [parent=root] [shares=1]         an account
//   assoc user=U account=A [shares=1]                a user association
//   partition name=P [tier=0] [job_factor=0]         PriorityTier and PriorityJobFactor
//   qos name=Q [priority=0]                          a QOS and its Priority
// Accounts, partitions and QOSes are declared before the lines that use them; a job's
// account must be declared (or root); without account= a job gets its user's first
// `assoc user=` account (its default account), else root. Users without an `assoc user=`
// line get an implicit association with 1 share. Partitions only set priority: every
// job may use every node.
// Jobs are replayed in submit order (ties in file order); `limit` is the scheduler's time
// limit (the user's estimate), `run` the actual run time. Errors name the line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "sim/policy.h"
#include "sim/priority_pass.h"
#include "sim/workload.h"

namespace sluice::sim {

struct ScenarioJob {
  std::string id;
  int64_t submit_s = 0;
  int64_t expect_start = 0;  // when expect_state == kStarted
  enum class State { kStarted, kRejected, kNever } expect_state = State::kStarted;
};

struct Scenario {
  std::string name;
  std::vector<Policy> policies;
  Workload workload;                  // cluster and jobs, in submit order
  std::vector<ScenarioJob> expected;  // parallel to workload.jobs
  std::vector<std::pair<std::string, std::string>> expect_metrics;
  SimPriority priority;  // multifactor priority (off without a `priority` line)
};

Expected<Scenario> ParseScenario(std::string_view text, std::string_view name);

// Replays `scenario` under `policy`; the returned strings describe each mismatch (empty
// = all expectations hold). A scheduler/simulator error is returned as a status.
Expected<std::vector<std::string>> RunScenario(const Scenario& scenario, Policy policy);

}  // namespace sluice::sim
