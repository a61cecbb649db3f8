#include "stepd/gpu_sampler.h"

#include <algorithm>
#include <cstdio>

namespace sluice {

GpuSampler::GpuSampler(std::vector<int> gpus, int interval_s, int64_t start_mono_ms)
    : gpus_(std::move(gpus)),
      interval_ms_(int64_t{interval_s} * 1000),
      next_ms_(start_mono_ms + std::min<int64_t>(1000, interval_ms_)) {}

int64_t GpuSampler::Tick(int64_t mono_ms) {
  if (failed_ || gpus_.empty() || interval_ms_ <= 0) return -1;
  if (mono_ms < next_ms_) return next_ms_;
  next_ms_ = mono_ms + interval_ms_;
  if (!nvml_) {
    auto opened = gpu::Nvml::Open();
    if (!opened.ok()) {
      std::fprintf(stderr, "sluice-stepd: no GPU usage: %s\n", opened.status().message().c_str());
      failed_ = true;
      return -1;
    }
    nvml_ = std::move(*opened);
  }
  int64_t util = 0, mem = 0;
  for (int g : gpus_) {
    auto s = nvml_->Sample(g);
    if (!s.ok()) return next_ms_;  // a GPU that cannot be read now: skip this sample
    util += s->util_pct;
    mem += s->mem_used_mb;
  }
  ++samples_;
  util_sum_ += util;
  mem_sum_ += mem;
  util_max_ = std::max(util_max_, util);
  mem_max_ = std::max(mem_max_, mem);
  return next_ms_;
}

GpuUsage GpuSampler::Usage() const {
  GpuUsage u;
  u.set_samples(static_cast<int32_t>(samples_));
  if (samples_ == 0) return u;
  u.set_util_ave_pct(util_sum_ / samples_);
  u.set_util_max_pct(util_max_);
  u.set_mem_ave_mb(mem_sum_ / samples_);
  u.set_mem_max_mb(mem_max_);
  return u;
}

}  // namespace sluice
