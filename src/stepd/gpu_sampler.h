// GpuSampler: a batch job's GPU usage on its batch host (BatchLaunch.gpu_sample_interval_s
// > 0, AutoDetect=nvml nodes). One second after the start, then every interval, it reads
// the utilization and memory in use of the job's GPUs through NVML (gpu/nvml.h, opened
// at the first sample, off the launch path) and keeps the average and maximum of their
// sums for the job's end report (JobReport.gpu_usage: sacct's TRESUsageInAve/Max
// gres/gpuutil and gres/gpumem). Device-level: a job holds its GPUs alone, so whatever
// runs on them (the script, its srun steps) is the job's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpu/nvml.h"
#include "node.pb.h"

namespace sluice {

class GpuSampler {
 public:
  GpuSampler(std::vector<int> gpus, int interval_s, int64_t start_mono_ms);

  // Samples when due at `mono_ms`; returns when the next one is due (-1: never again).
  int64_t Tick(int64_t mono_ms);
  // What was sampled (samples 0: nothing yet).
  GpuUsage Usage() const;

 private:
  std::vector<int> gpus_;
  int64_t interval_ms_;
  int64_t next_ms_;
  std::unique_ptr<gpu::Nvml> nvml_;
  bool failed_ = false;
  int64_t samples_ = 0, util_sum_ = 0, util_max_ = 0, mem_sum_ = 0, mem_max_ = 0;
};

}  // namespace sluice
