#include "ctld/services/step_usage_call.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace sluice::ctld {
namespace {

// The agents' answers, gathered on the link's threads.
struct Gather {
  std::mutex mu;
  size_t left = 0;
  StepUsageReply reply;
};

}  // namespace

void StepUsageAsync(OwnerLoop* loop, const Caller& caller, const StepUsageRequest& req,
                    std::function<void(Expected<StepUsageReply>)> done) {
  using Targets = Controller::StepUsageTargets;
  loop->CallAsync<Targets>(
      [caller, req](Controller* c) { return c->UsageTargets(caller, req.job_id(), req.step_id()); },
      [req, done = std::move(done)](Expected<Targets> plan) {
        if (!plan.ok()) return done(plan.status());
        auto g = std::make_shared<Gather>();
        g->left = plan->agents.size();
        g->reply.set_ntasks(plan->ntasks);
        if (g->left == 0) return done(std::move(g->reply));
        for (const AgentAddress& to : plan->agents) {
          AgentStepUsageRequest ask;
          ask.set_job_id(req.job_id());
          ask.set_step_id(req.step_id());
          plan->link->StepUsage(
              to, std::move(ask), [g, done, node = to.node](Expected<AgentStepUsageReply> r) {
                std::unique_lock<std::mutex> lock(g->mu);
                if (r.ok() && r->error().empty()) {
                  for (const TaskUsage& t : r->tasks()) *g->reply.add_tasks() = t;
                } else {
                  g->reply.add_errors(node + ": " + (r.ok() ? r->error() : r.status().message()));
                }
                if (--g->left > 0) return;
                auto& tasks = *g->reply.mutable_tasks();
                std::sort(tasks.begin(), tasks.end(), [](const TaskUsage& a, const TaskUsage& b) {
                  return a.rank() < b.rank();
                });
                lock.unlock();
                done(std::move(g->reply));
              });
        }
      });
}

}  // namespace sluice::ctld
