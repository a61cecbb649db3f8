#include "ctld/services/launch_step_call.h"

#include <memory>

namespace sluice::ctld {

void LaunchStepAsync(OwnerLoop* loop, const Caller& caller, const StepRequest* req,
                     std::string relayed_by, std::function<void(Expected<StepReply>)> done) {
  loop->CallAsync<StepStart>(
      [caller, req, relayed_by = std::move(relayed_by)](Controller* c) -> Expected<StepStart> {
        if (!relayed_by.empty()) RETURN_IF_ERROR(c->CheckRelay(relayed_by, req->job_id()));
        return c->CreateStep(caller, *req);
      },
      [done = std::move(done)](Expected<StepStart> start) {
        if (!start.ok()) return done(start.status());
        auto reply = std::make_shared<StepReply>(std::move(start->reply));
        start->latch->OnDone([reply, done](const std::vector<std::string>& errors) {
          for (const std::string& e : errors) reply->add_launch_errors(e);
          done(std::move(*reply));
        });
      });
}

}  // namespace sluice::ctld
