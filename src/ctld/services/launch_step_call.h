// LaunchStepAsync: one LaunchStep, whichever way it came: from srun over gRPC
// (ClientService) or relayed by the agent of srun's node (NodeService::Relay, where
// `relayed_by` names that node and the job must be allocated on it). Creates the step on
// the owner thread and calls `done` once every node agent of the step answered its
// LaunchTasks (their errors in launch_errors), or with the error that stopped it.
#pragma once

#include <functional>
#include <string>

#include "client.pb.h"
#include "ctld/core/controller.h"
#include "ctld/runtime/owner_loop.h"

namespace sluice::ctld {

void LaunchStepAsync(OwnerLoop* loop, const Caller& caller, const StepRequest* req,
                     std::string relayed_by, std::function<void(Expected<StepReply>)> done);

}  // namespace sluice::ctld
