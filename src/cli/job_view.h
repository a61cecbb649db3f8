// Derived views of a JobInfo that several commands print the same way:
// node list, TRES strings, run time, exit code, end time.
#pragma once

#include <cstdint>
#include <string>

#include "types.pb.h"

namespace sluice {

// Allocated nodes, compressed and sorted ("node[01-02]"); "" when none.
std::string JobNodeList(const JobInfo& job);
// First allocated node ("BatchHost"); "" when none.
std::string JobBatchHost(const JobInfo& job);
// "cpu=2,mem=2000M,node=2,billing=2,gres/gpu=8"
std::string JobTresString(const JobInfo& job);
// "gres:gpu:4" / "gres:gpu:h100:4,gres:nic:1"; "" when the job asked for no gres.
std::string JobTresPerNode(const JobInfo& job);
int64_t JobTotalGpus(const JobInfo& job);
int64_t JobTotalMemMb(const JobInfo& job);
// Seconds the job has run (0 when it never started).
int64_t JobRunSeconds(const JobInfo& job, int64_t now);
// Expected or actual end: end_time, else start + limit, else 0.
int64_t JobEndTime(const JobInfo& job);
// "3:0", "0:15"
std::string JobExitCode(const JobInfo& job);
// True when squeue's %R shows "(reason)" instead of nodes.
bool JobShowsReason(const JobInfo& job);

}  // namespace sluice
