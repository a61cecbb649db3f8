// Maps sluice Status codes to gRPC status codes; the message (Slurm's wording) is kept.
#pragma once

#include <grpcpp/grpcpp.h>

#include "common/status.h"

namespace sluice::ctld {

grpc::Status ToGrpc(const Status& st);

}  // namespace sluice::ctld
