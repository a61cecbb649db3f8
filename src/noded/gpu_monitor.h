// GpuMonitor: the agent's GPU health check (AutoDetect=nvml nodes). Every
// GpuHealthCheckInterval seconds a thread asks NVML what is wrong with each GPU
// (gpu/nvml.h CheckHealth) and keeps the answer as a GpuHealth (node.proto) that the
// agent sends with every registration and heartbeat; when the answer changes it calls
// `on_change` (the agent heartbeats at once, so a failing GPU stops taking jobs within
// one interval). Thread-safe.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "gpu/nvml.h"
#include "node.pb.h"

namespace sluice {

class GpuMonitor {
 public:
  GpuMonitor(std::shared_ptr<gpu::Nvml> nvml, int interval_s);
  ~GpuMonitor();

  // One check now (before the first registration).
  void CheckNow();
  void Start(std::function<void()> on_change);
  void Stop();
  GpuHealth Current() const;

 private:
  void Loop();

  std::shared_ptr<gpu::Nvml> nvml_;
  int interval_s_;
  mutable std::mutex mu_;
  GpuHealth current_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::function<void()> on_change_;
  std::thread thread_;
};

}  // namespace sluice
