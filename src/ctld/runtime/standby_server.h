// StandbyServer: what a standby controller (leadership.h) serves on its address while it
// waits for the lease: every call, of any service, is answered UNAVAILABLE with
// kStandbyAnswer in its message. Clients and agents take that as "not carried out, try the
// next controller" (rpc/connect_failure.h), and `scontrol ping` as "up, standing by" --
// as Slurm's backup controller answers pings. Stopped before the controller serves.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "common/status.h"

namespace sluice::ctld {

class StandbyServer {
 public:
  // `name`: this controller's SlurmctldHost name, for the answer.
  explicit StandbyServer(std::string name);
  ~StandbyServer();
  Status Start(const std::string& listen);
  void Stop();

 private:
  class Service;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace sluice::ctld
