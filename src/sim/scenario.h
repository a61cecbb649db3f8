// Scenario files: a small cluster, a few jobs and the answers computed by hand, so a new
// simulator/scheduler regression test is one new data file. Pure (text in, data out);
// RunScenario replays one under a policy and lists every mismatch.
//
// Format (one directive per line, `#` starts a comment, tokens are key=value):
//   policy fcfs [easy] [conservative] [easy-pred-sjbf] ...
//                                          the policies whose answers the file gives (any
//                                          sim/policy.h name: predictions, backfill orders)
//   backfill starvation_factor=K           the backfill starvation guard (default 0 = off)
//   nodes count=2 cpus=4 [gpus=0] [mem=0]  adds `count` identical nodes (may repeat)
//   job id=a submit=0 run=10 [limit=run] [nodes=1] [cpus=1] [gpus=0] [exclusive=0]
//       start=T | start=rejected | start=never   expected start (relative seconds)
//       [user=U] [account=A] [partition=P] [qos=Q] [nice=0]   multifactor priority inputs
//       (user= is also the runtime-prediction history key of -pred policies)
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
// Other scheduling inputs (sim/simulator.h says how the replay treats them); nodes are
// named n1, n2, ... in the order the `nodes` lines add them:
//   switch name=S [parent=P] [nodes=n1,n2]     a switch of the tree topology; `nodes` hang
//                                              off it (a leaf). Parents come first.
//   reservation name=R start=T end=T nodes=n1,n2 [maint=0]
//   limit user=U [account=A] [max_jobs=] [max_wall=S] [max_tres_per_job=TRES] [grp_jobs=]
//         [grp_tres=TRES]                      the user's association (A: its default)
//   limit account=A [grp_jobs=] [grp_tres=TRES]          over A's whole subtree
//   limit qos=Q [grp_jobs=] [grp_tres=TRES] [max_wall=S] [max_tres_per_job=TRES]
//         [max_jobs_per_user=] [max_tres_per_user=TRES]
//                                              TRES: cpu=4,node=2,gres/gpu=8 (limit_types.h)
//   preempt type=partition_prio|qos [mode=cancel|requeue] [exempt=S]
//   qos name=Q ... [preempts=A,B] [preempt_mode=cancel|requeue]   preempt/qos rules
// Job keys for them: reservation=R, switches=N [switches_wait=S]; preempted=N (expected
// times it is a victim, default 0); reason=WORD (expected last pending reason, e.g.
// AssocMaxJobsLimit, Dependency); afterok=a,b and afterany=a,b (job ids, an array's id
// names all its tasks); array=N [throttle=K] makes tasks ID_0 .. ID_N-1, with start= and
// reason= one value for all or N comma-separated values (task order; reason "-" = any).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/preempt_mode.h"
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
  int64_t expect_preempted = 0;  // times it is a preemption victim
  std::string expect_reason;     // its last pending reason ("" = not checked)
};

struct Scenario {
  std::string name;
  std::vector<Policy> policies;
  Workload workload;                  // cluster and jobs, in submit order
  std::vector<ScenarioJob> expected;  // parallel to workload.jobs
  std::vector<std::pair<std::string, std::string>> expect_metrics;
  SimPriority priority;  // multifactor priority (off without a `priority` line)
  PreemptMode preempt_mode = PreemptMode::kCancel;  // what happens to victims
  std::vector<PolicySpec> specs;                    // `policy` names beyond fcfs/easy/conservative
  double starvation_factor = 0;                     // `backfill starvation_factor=K`
};

Expected<Scenario> ParseScenario(std::string_view text, std::string_view name);

// Replays `scenario` under `policy`; the returned strings describe each mismatch (empty
// = all expectations hold). A scheduler/simulator error is returned as a status.
Expected<std::vector<std::string>> RunScenario(const Scenario& scenario, Policy policy);
Expected<std::vector<std::string>> RunScenario(const Scenario& scenario, const PolicySpec& spec);

}  // namespace sluice::sim
