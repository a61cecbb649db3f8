// A workload trace as parsed from a file: one record per job, already cleaned by the
// readers' rules (below), in submit order with submit times relative to the first job.
// Plain data; the readers (trace_reader.h) fill it, workload.h turns it into scheduler
// requests on a cluster.
//
// Cleaning rules (the same for every format; `dropped` counts the jobs they remove):
//  - a job whose run time is unknown or <= 0, or whose submit time is unknown, is dropped;
//  - a job with no processors (SWF) or no GPUs (GPU traces) is dropped;
//  - requested time (the user's estimate / time limit) unknown or <= 0 -> the run time
//    (requested_known = false);
//  - run time longer than the requested time is capped at the requested time
//    (the job would have been killed at its limit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::sim {

enum class TraceKind {
  kCpu,  // Standard Workload Format: jobs ask for processors
  kGpu,  // GPU-cluster CSVs: jobs ask for GPUs
};

struct TraceJob {
  std::string id;               // the trace's job number / name
  int64_t submit_s = 0;         // relative to the trace's first submit (>= 0)
  int64_t run_s = 0;            // actual run time (> 0, <= requested_s)
  int64_t requested_s = 0;      // the user's estimate, the scheduler's time limit
  int procs = 0;                // kCpu: processors requested (> 0)
  int gpus = 0;                 // kGpu: GPUs requested in total (> 0)
  int nodes = 0;                // nodes the trace says the job used (0 = not known)
  std::string user;             // who submitted it ("" = not known): SWF user id, Philly cluster
  std::string app;              // SWF executable id ("" = not known)
  bool requested_known = true;  // false: the trace had no requested time (set to run_s)
};

struct Trace {
  TraceKind kind = TraceKind::kCpu;
  std::string name;            // file name, for reports
  std::vector<TraceJob> jobs;  // sorted by submit time, ties in file order
  int max_procs = 0;           // SWF header MaxProcs (0 = absent)
  int max_nodes = 0;           // SWF header MaxNodes (0 = absent)
  int64_t dropped = 0;         // jobs removed by the cleaning rules
};

// The filter of the published SWF comparisons (on top of the cleaning rules): also drops
// jobs without a requested time and jobs wider than MaxProcs (when the header has it).
// Returns how many it dropped (added to `dropped`).
int64_t ApplyPublishedFilter(Trace* trace);

}  // namespace sluice::sim
