// StepUsageAsync: sstat's StepUsage rpc. Finds the running step's nodes on the owner
// thread, then asks each node's agent (AgentLink::StepUsage) what the step's tasks use
// now and calls `done` once every agent answered; an agent that did not is named in the
// reply's errors. Nothing waits on agents: the last answer finishes the call.
#pragma once

#include <functional>

#include "client.pb.h"
#include "ctld/core/controller.h"
#include "ctld/runtime/owner_loop.h"

namespace sluice::ctld {

void StepUsageAsync(OwnerLoop* loop, const Caller& caller, const StepUsageRequest& req,
                    std::function<void(Expected<StepUsageReply>)> done);

}  // namespace sluice::ctld
