#include "ctld/runtime/agent_outcome.h"

#include "rpc/connect_failure.h"

namespace sluice::ctld {

Status AgentCallOutcome(const grpc::Status& s) {
  using grpc::StatusCode;
  const std::string& msg = s.error_message();
  switch (s.error_code()) {
    case StatusCode::OK:
      return Status::Ok();
    case StatusCode::UNAVAILABLE:
      if (GrpcNeverConnected(msg)) return Unavailable(msg.empty() ? "agent unreachable" : msg);
      return UnknownOutcome(msg.empty() ? "connection lost" : msg);
    case StatusCode::INVALID_ARGUMENT:
    case StatusCode::NOT_FOUND:
    case StatusCode::ALREADY_EXISTS:
    case StatusCode::PERMISSION_DENIED:
    case StatusCode::UNAUTHENTICATED:
    case StatusCode::FAILED_PRECONDITION:
    case StatusCode::OUT_OF_RANGE:
    case StatusCode::UNIMPLEMENTED:
    case StatusCode::RESOURCE_EXHAUSTED:  // too large to send, or refused by the agent
      return FailedPrecondition(msg.empty() ? "refused by the agent" : msg);
    default:  // DEADLINE_EXCEEDED, CANCELLED, UNKNOWN, INTERNAL, ABORTED, DATA_LOSS
      return UnknownOutcome(msg.empty() ? "no answer from the agent" : msg);
  }
}

}  // namespace sluice::ctld
