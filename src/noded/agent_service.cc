#include "noded/agent_service.h"

#include "rpc/protocol.h"

namespace sluice {

template <typename M>
grpc::Status AgentService::Check(const char* method, const M& req, Agent** agent) {
  auto sender = verifier_->Verify(method, req);
  if (!sender.ok()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "Invalid node authentication: " + sender.status().message());
  }
  if (*sender != kControllerSender) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "only the controller may call agents");
  }
  if (Status st = CheckPeerProtocol(PeerProtocol(req.auth().protocol()), "the controller", "agent");
      !st.ok()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, st.message());
  }
  auto it = req.node().empty() && agents_.size() == 1 ? agents_.begin() : agents_.find(req.node());
  if (it == agents_.end()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "node " + (req.node().empty() ? std::string("(unnamed)") : req.node()) +
                            " is not served by this agent");
  }
  *agent = it->second;
  return grpc::Status::OK;
}

grpc::Status AgentService::LaunchJob(grpc::ServerContext*, const LaunchJobRequest* req,
                                     LaunchJobReply* reply) {
  Agent* agent = nullptr;
  grpc::Status st = Check("LaunchJob", *req, &agent);
  if (st.ok()) *reply = agent->Launch(req->launch(), req->session());
  return st;
}

grpc::Status AgentService::SignalJob(grpc::ServerContext*, const SignalJobRequest* req,
                                     SignalJobReply* reply) {
  Agent* agent = nullptr;
  grpc::Status st = Check("SignalJob", *req, &agent);
  if (st.ok()) *reply = agent->Signal(*req);
  return st;
}

grpc::Status AgentService::UpdateJobLimit(grpc::ServerContext*, const UpdateJobLimitRequest* req,
                                          UpdateJobLimitReply*) {
  Agent* agent = nullptr;
  grpc::Status st = Check("UpdateJobLimit", *req, &agent);
  if (!st.ok()) return st;
  Status s = agent->UpdateLimit(*req);
  return s.ok() ? grpc::Status::OK : grpc::Status(grpc::StatusCode::UNAVAILABLE, s.message());
}

grpc::Status AgentService::LaunchTasks(grpc::ServerContext*, const LaunchTasksRequest* req,
                                       LaunchTasksReply* reply) {
  Agent* agent = nullptr;
  grpc::Status st = Check("LaunchTasks", *req, &agent);
  if (st.ok()) *reply = agent->LaunchTasks(req->launch());
  return st;
}

grpc::Status AgentService::Reregister(grpc::ServerContext*, const ReregisterRequest* req,
                                      ReregisterReply*) {
  Agent* agent = nullptr;
  grpc::Status st = Check("Reregister", *req, &agent);
  if (st.ok()) agent->RegisterSoon(req->controller());
  return st;
}

grpc::Status AgentService::StepUsage(grpc::ServerContext*, const AgentStepUsageRequest* req,
                                     AgentStepUsageReply* reply) {
  Agent* agent = nullptr;
  grpc::Status st = Check("StepUsage", *req, &agent);
  if (st.ok()) *reply = agent->StepUsage(req->job_id(), req->step_id());
  return st;
}

}  // namespace sluice
