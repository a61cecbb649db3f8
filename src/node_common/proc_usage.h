// What a task uses now, read from /proc: the processes of the task's process group
// (stepd makes every task the leader of its own group, so its descendants share it unless
// they start their own, as job-control shells do). sstat's numbers come from here
// (noded/agent_steps.cc).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sluice {

struct ProcessUsage {
  int64_t rss_kb = 0;
  int64_t vsize_kb = 0;
  int64_t cpu_ms = 0;      // user + system of the live processes, plus the reaped children of each
  int64_t pages = 0;       // major page faults
  int64_t read_bytes = 0;  // /proc/<pid>/io (0 where not readable)
  int64_t write_bytes = 0;
  std::vector<pid_t> pids;  // SampleProcessGroups: the processes summed
};

// One /proc/<pid>/stat line parsed: the process group and the usage of that process.
// False when `stat` is not such a line.
bool ParseProcStat(const std::string& stat, long clock_ticks, long page_kb, pid_t* group,
                   ProcessUsage* usage);

// The usage of each process group in `groups` (summed over its processes), from one pass
// over `proc_root` ("/proc"). A group with no process left is absent.
std::map<pid_t, ProcessUsage> SampleProcessGroups(const std::vector<pid_t>& groups,
                                                  const std::string& proc_root = "/proc");

}  // namespace sluice
