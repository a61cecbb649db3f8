#include "cli/job_states.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace sluice {
namespace {

struct StateName {
  JobState state;
  const char* name;
  const char* compact;
};

constexpr StateName kStates[] = {
    {JOB_PENDING, "PENDING", "PD"},
    {JOB_RUNNING, "RUNNING", "R"},
    {JOB_COMPLETING, "COMPLETING", "CG"},
    {JOB_COMPLETED, "COMPLETED", "CD"},
    {JOB_FAILED, "FAILED", "F"},
    {JOB_CANCELLED, "CANCELLED", "CA"},
    {JOB_TIMEOUT, "TIMEOUT", "TO"},
    {JOB_NODE_FAIL, "NODE_FAIL", "NF"},
    {JOB_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM"},
    {JOB_PREEMPTED, "PREEMPTED", "PR"},
};

// Slurm states without a Sluice equivalent: long and compact names.
constexpr const char* kForeign[] = {
    "SUSPENDED",    "S",  "BOOT_FAIL",     "BF", "DEADLINE",  "DL", "CONFIGURING",  "CF",
    "RESIZING",     "RS", "RESV_DEL_HOLD", "RD", "REQUEUED",  "RQ", "REQUEUE_FED",  "RF",
    "REQUEUE_HOLD", "RH", "REVOKED",       "RV", "SIGNALING", "SI", "SPECIAL_EXIT", "SE",
    "STAGE_OUT",    "SO", "STOPPED",       "ST",
};

}  // namespace

const char kValidJobStates[] =
    "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,"
    "BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,RESV_DEL_HOLD,"
    "REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED";

std::string JobStateName(JobState s) {
  for (const auto& n : kStates)
    if (n.state == s) return n.name;
  return "UNKNOWN";
}

std::string JobStateCompact(JobState s) {
  for (const auto& n : kStates)
    if (n.state == s) return n.compact;
  return "?";
}

std::string JobStateName(const JobInfo& j) {
  return j.stopped() && j.state() == JOB_RUNNING ? "STOPPED" : JobStateName(j.state());
}

std::string JobStateCompact(const JobInfo& j) {
  return j.stopped() && j.state() == JOB_RUNNING ? "ST" : JobStateCompact(j.state());
}

bool IsTerminalState(JobState s) {
  return s != JOB_PENDING && s != JOB_RUNNING && s != JOB_COMPLETING && s != JOB_STATE_UNSPECIFIED;
}

bool IsActiveState(JobState s) {
  return s == JOB_PENDING || s == JOB_RUNNING || s == JOB_COMPLETING;
}

Expected<std::set<JobState>> ParseJobStateList(const std::string& list) {
  std::set<JobState> out;
  std::stringstream ss(list);
  for (std::string word; std::getline(ss, word, ',');) {
    std::string up = word;
    std::transform(up.begin(), up.end(), up.begin(), ::toupper);
    if (up == "ALL") {
      for (const auto& n : kStates) out.insert(n.state);
      continue;
    }
    bool found = false;
    for (const auto& n : kStates) {
      if (up == n.name || up == n.compact) {
        out.insert(n.state);
        found = true;
      }
    }
    for (const char* f : kForeign) found = found || up == f;
    if (!found) return InvalidArgument(word);
  }
  return out;
}

}  // namespace sluice
