#include "noded/agent_service.h"

namespace sluice {

template <typename M>
grpc::Status AgentService::Check(const char* method, const M& req) {
  auto sender = verifier_->Verify(method, req);
  if (!sender.ok()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "Invalid node authentication: " + sender.status().message());
  }
  if (*sender != kControllerSender) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "only the controller may call agents");
  }
  return grpc::Status::OK;
}

grpc::Status AgentService::LaunchJob(grpc::ServerContext*, const LaunchJobRequest* req,
                                     LaunchJobReply* reply) {
  grpc::Status st = Check("LaunchJob", *req);
  if (st.ok()) *reply = agent_->Launch(req->launch(), req->session());
  return st;
}

grpc::Status AgentService::SignalJob(grpc::ServerContext*, const SignalJobRequest* req,
                                     SignalJobReply* reply) {
  grpc::Status st = Check("SignalJob", *req);
  if (st.ok()) *reply = agent_->Signal(*req);
  return st;
}

grpc::Status AgentService::UpdateJobLimit(grpc::ServerContext*, const UpdateJobLimitRequest* req,
                                          UpdateJobLimitReply*) {
  grpc::Status st = Check("UpdateJobLimit", *req);
  if (!st.ok()) return st;
  Status s = agent_->UpdateLimit(*req);
  return s.ok() ? grpc::Status::OK : grpc::Status(grpc::StatusCode::UNAVAILABLE, s.message());
}

grpc::Status AgentService::LaunchTasks(grpc::ServerContext*, const LaunchTasksRequest* req,
                                       LaunchTasksReply* reply) {
  grpc::Status st = Check("LaunchTasks", *req);
  if (st.ok()) *reply = agent_->LaunchTasks(req->launch());
  return st;
}

grpc::Status AgentService::StepUsage(grpc::ServerContext*, const AgentStepUsageRequest* req,
                                     AgentStepUsageReply* reply) {
  grpc::Status st = Check("StepUsage", *req);
  if (st.ok()) *reply = agent_->StepUsage(req->job_id(), req->step_id());
  return st;
}

}  // namespace sluice
