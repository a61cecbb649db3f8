// What a failed controller->agent call tells about the agent's state. A call the agent
// provably never received (no connection could be made) or explicitly refused did
// nothing there; any other failure (connection lost after sending, deadline exceeded,
// cancelled) has an unknown outcome: the agent may have carried it out.
#pragma once

#include <grpcpp/support/status.h>

#include "common/status.h"

namespace sluice::ctld {

// OK -> Ok; never delivered -> kUnavailable; refused by the agent (its handler answered
// with an error status) -> kFailedPrecondition; everything else -> kUnknown.
Status AgentCallOutcome(const grpc::Status& s);

}  // namespace sluice::ctld
