// StepStart: what Controller::CreateStep hands back to the RPC thread: the reply for
// srun and a latch the RPC thread waits on until every node agent of the step answered
// its LaunchTasks (the controller's owner thread never waits on agents).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client.pb.h"

namespace sluice::ctld {

class LaunchLatch {
 public:
  explicit LaunchLatch(int count) : left_(count) {}
  // One node answered; `error` empty on success.
  void Done(const std::string& node, const std::string& error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error.empty()) errors_.push_back(node + ": " + error);
    if (--left_ <= 0) cv_.notify_all();
  }
  // Waits up to `timeout_ms`; nodes that did not answer count as errors.
  std::vector<std::string> Wait(int timeout_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    bool all = cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return left_ <= 0; });
    std::vector<std::string> out = errors_;
    if (!all) out.push_back("launch timed out on " + std::to_string(left_) + " node(s)");
    return out;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int left_;
  std::vector<std::string> errors_;
};

struct StepStart {
  StepReply reply;
  std::shared_ptr<LaunchLatch> latch;
};

}  // namespace sluice::ctld
