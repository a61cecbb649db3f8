#include "noded/gpu_monitor.h"

#include <google/protobuf/util/message_differencer.h>

namespace sluice {

GpuMonitor::GpuMonitor(std::shared_ptr<gpu::Nvml> nvml, int interval_s)
    : nvml_(std::move(nvml)), interval_s_(interval_s) {}

GpuMonitor::~GpuMonitor() { Stop(); }

void GpuMonitor::CheckNow() {
  GpuHealth now;
  for (std::string& fault : nvml_->CheckHealth()) now.add_faults(std::move(fault));
  bool changed = false;
  std::function<void()> notify;
  {
    std::lock_guard<std::mutex> lock(mu_);
    changed = !google::protobuf::util::MessageDifferencer::Equals(now, current_);
    current_ = std::move(now);
    notify = on_change_;
  }
  if (changed && notify) notify();
}

void GpuMonitor::Start(std::function<void()> on_change) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    on_change_ = std::move(on_change);
  }
  if (interval_s_ > 0) thread_ = std::thread([this] { Loop(); });
}

void GpuMonitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

GpuHealth GpuMonitor::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

void GpuMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::seconds(interval_s_), [this] { return stop_; })) {
    lock.unlock();
    CheckNow();
    lock.lock();
  }
}

}  // namespace sluice
