// Slurm's names for job states, and state-list parsing shared by squeue and scancel.
//   JobStateName(JOB_PENDING) == "PENDING"; JobStateCompact(JOB_PENDING) == "PD"
//   ParseJobStateList("PD,r,completed") -> {PENDING, RUNNING, COMPLETED}
//   ParseJobStateList("all") -> every state
// Slurm states Sluice does not have (SUSPENDED, PREEMPTED, ...) are accepted and match
// no job. An unknown name is an error whose message is the offending word.
#pragma once

#include <set>
#include <string>

#include "common/status.h"
#include "types.pb.h"

namespace sluice {

std::string JobStateName(JobState s);
std::string JobStateCompact(JobState s);
// A job's state as the commands show it: a RUNNING job whose processes scancel stopped
// (SIGSTOP, no SIGCONT since) is STOPPED / ST.
std::string JobStateName(const JobInfo& j);
std::string JobStateCompact(const JobInfo& j);
bool IsTerminalState(JobState s);
// The states squeue shows by default (PENDING, RUNNING, COMPLETING).
bool IsActiveState(JobState s);

Expected<std::set<JobState>> ParseJobStateList(const std::string& list);

// The list squeue prints after "Valid job states include: ".
extern const char kValidJobStates[];

}  // namespace sluice
