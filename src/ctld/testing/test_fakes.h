// Test doubles for ctld unit tests (see test_fakes_test.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ctld/runtime/agent_link.h"
#include "sched/scheduler.h"

namespace sluice::ctld::testing {

struct FakeAgentLink : AgentLink {
  struct LaunchCall {
    AgentAddress to;
    LaunchJobRequest req;
    std::function<void(Status)> done;
  };
  std::vector<LaunchCall> launches;
  std::vector<std::pair<AgentAddress, SignalJobRequest>> signals;
  std::vector<std::pair<AgentAddress, UpdateJobLimitRequest>> limits;
  std::vector<LaunchTasksRequest> tasks;
  std::map<std::string, std::string> task_errors;  // node -> its LaunchTasks' error
  std::map<std::string, Status> task_results;      // node -> its LaunchTasks' outcome

  void Launch(const AgentAddress& to, LaunchJobRequest req,
              std::function<void(Status)> done) override {
    launches.push_back({to, std::move(req), std::move(done)});
  }
  // Signals answer at once with `signal_result` (tests set it to lose them).
  Status signal_result;
  void Signal(const AgentAddress& to, SignalJobRequest req,
              std::function<void(Status)> done) override {
    signals.emplace_back(to, std::move(req));
    if (done) done(signal_result);
  }
  void UpdateLimit(const AgentAddress& to, UpdateJobLimitRequest req) override {
    limits.emplace_back(to, std::move(req));
  }
  std::vector<std::string> reregisters;  // nodes asked to register now
  void Reregister(const AgentAddress& to, const std::string& controller) override {
    reregisters.push_back(to.node + "@" + controller);
  }
  void LaunchTasks(const AgentAddress& to, LaunchTasksRequest req,
                   std::function<void(Status)> done) override {
    tasks.push_back(std::move(req));
    auto error = task_errors.find(to.node);
    auto result = task_results.find(to.node);
    if (!done) return;
    if (result != task_results.end()) return done(result->second);
    done(error == task_errors.end() ? Status::Ok() : Internal(error->second));
  }
};

class FirstFitScheduler : public sched::Scheduler {
 public:
  sched::Plan Schedule(const sched::ClusterSnapshot& snapshot,
                       const std::vector<sched::JobRequest>& pending, int64_t now) override;
};

sched::Decision FakeFeasible(const sched::ClusterSnapshot& snap, const sched::JobRequest& job);

}  // namespace sluice::ctld::testing
