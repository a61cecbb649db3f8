#include "ctld/runtime/standby_server.h"

#include <grpcpp/generic/async_generic_service.h>

#include "rpc/connect_failure.h"
#include "rpc/grpc_limits.h"

namespace sluice::ctld {

class StandbyServer::Service : public grpc::CallbackGenericService {
 public:
  explicit Service(std::string answer) : answer_(std::move(answer)) {}

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    return new Reply(answer_);
  }

 private:
  // Answers at once; the request is never read.
  class Reply : public grpc::ServerGenericBidiReactor {
   public:
    explicit Reply(const std::string& answer) {
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, answer));
    }
    void OnDone() override { delete this; }
  };
  const std::string answer_;
};

StandbyServer::StandbyServer(std::string name)
    : service_(std::make_unique<Service>(std::string(kStandbyAnswer) + " " + name +
                                         ": another controller leads")) {}

StandbyServer::~StandbyServer() { Stop(); }

Status StandbyServer::Start(const std::string& listen) {
  grpc::ServerBuilder builder;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a port clash fails loudly
  int bound_port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterCallbackGenericService(service_.get());
  server_ = builder.BuildAndStart();
  if (!server_ || bound_port == 0) return Unavailable("cannot listen on " + listen);
  return Status::Ok();
}

void StandbyServer::Stop() {
  if (!server_) return;
  server_->Shutdown();  // every call is answered at once: nothing to wait for
  server_->Wait();
  server_.reset();
}

}  // namespace sluice::ctld
