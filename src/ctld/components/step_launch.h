// StepStart: what Controller::CreateStep hands back to the RPC: the reply for srun and a
// latch that fires once every node agent of the step answered its LaunchTasks (nobody
// waits on agents: the last answer finishes the RPC).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client.pb.h"

namespace sluice::ctld {

class LaunchLatch {
 public:
  using Callback = std::function<void(const std::vector<std::string>& errors)>;
  explicit LaunchLatch(int count) : left_(count) {}
  // One node answered; `error` empty on success. Agents always answer: each LaunchTasks
  // has a deadline (AgentLink), after which it fails.
  void Done(const std::string& node, const std::string& error) {
    Callback fire;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error.empty()) errors_.push_back(node + ": " + error);
      if (--left_ == 0) fire = std::move(on_done_);
    }
    if (fire) fire(errors_);
  }
  // `fn` runs once every node answered (at once if they all have), with their errors.
  void OnDone(Callback fn) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (left_ > 0) {
        on_done_ = std::move(fn);
        return;
      }
    }
    fn(errors_);
  }

 private:
  std::mutex mu_;
  int left_;
  std::vector<std::string> errors_;
  Callback on_done_;
};

struct StepStart {
  StepReply reply;
  std::shared_ptr<LaunchLatch> latch;
};

}  // namespace sluice::ctld
