#include "ctld/runtime/agent_link.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "ctld/runtime/agent_outcome.h"
#include "node.grpc.pb.h"
#include "rpc/grpc_limits.h"
#include "rpc/node_auth.h"

namespace sluice::ctld {

GrpcAgentLink::GrpcAgentLink(std::string cluster_key, const Clock* clock, int timeout_ms)
    : signer_(std::make_unique<NodeSigner>(std::move(cluster_key), "sluicectld", clock)),
      timeout_ms_(timeout_ms) {}

GrpcAgentLink::~GrpcAgentLink() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return in_flight_ == 0; });  // each ends by its deadline
}

std::shared_ptr<grpc::Channel> GrpcAgentLink::ChannelFor(const AgentAddress& to) {
  std::string target = ChannelTarget(to.host, to.port);
  std::lock_guard<std::mutex> lock(mu_);
  auto& ch = channels_[target];
  if (!ch) ch = CreateLimitedChannel(target);
  return ch;
}

template <typename Req, typename Reply, typename Start>
void GrpcAgentLink::Call(const AgentAddress& to, const char* method, Req req, Start start,
                         std::function<void(const grpc::Status&, Reply&)> done,
                         std::shared_ptr<grpc::Channel> channel) {
  struct State {
    grpc::ClientContext ctx;
    Req req;
    Reply reply;
    std::unique_ptr<AgentApi::Stub> stub;
  };
  auto* call = new State;
  call->req = std::move(req);
  call->req.set_node(to.node);
  signer_->Sign(method, &call->req);
  call->stub = AgentApi::NewStub(channel ? channel : ChannelFor(to));
  call->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++in_flight_;
  }
  start(call->stub->async(), &call->ctx, &call->req, &call->reply,
        [this, call, done = std::move(done)](grpc::Status gs) {
          if (done) done(gs, call->reply);
          delete call;
          std::lock_guard<std::mutex> lock(mu_);
          if (--in_flight_ == 0) idle_.notify_all();
        });
}

void GrpcAgentLink::Launch(const AgentAddress& to, LaunchJobRequest req,
                           std::function<void(Status)> done) {
  Call<LaunchJobRequest, LaunchJobReply>(
      to, "LaunchJob", std::move(req), [](auto* async, auto... args) { async->LaunchJob(args...); },
      [done = std::move(done)](const grpc::Status& gs, LaunchJobReply& reply) {
        Status st = AgentCallOutcome(gs);
        if (st.ok() && reply.stale()) {
          st = Unavailable("launch refused: the node registered again since it was sent");
        } else if (st.ok() && !reply.ok()) {
          st = Internal(reply.error().empty() ? "launch failed" : reply.error());
        }
        if (done) done(st);
      });
}

void GrpcAgentLink::Signal(const AgentAddress& to, SignalJobRequest req,
                           std::function<void(Status)> done) {
  Call<SignalJobRequest, SignalJobReply>(
      to, "SignalJob", std::move(req), [](auto* async, auto... args) { async->SignalJob(args...); },
      [done = std::move(done)](const grpc::Status& gs, SignalJobReply&) {
        if (done) done(AgentCallOutcome(gs));
      });
}

void GrpcAgentLink::UpdateLimit(const AgentAddress& to, UpdateJobLimitRequest req) {
  Call<UpdateJobLimitRequest, UpdateJobLimitReply>(
      to, "UpdateJobLimit", std::move(req),
      [](auto* async, auto... args) { async->UpdateJobLimit(args...); }, nullptr);
}

void GrpcAgentLink::Reregister(const AgentAddress& to, const std::string& controller) {
  ReregisterRequest req;
  req.set_controller(controller);
  // On a channel of its own, with its own connection: the agent may not be up yet (a
  // cluster starting), and a refused connection must not leave the cached channel waiting
  // out its reconnect backoff when the first launch comes.
  grpc::ChannelArguments args = LimitedChannelArgs();
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  Call<ReregisterRequest, ReregisterReply>(
      to, "Reregister", std::move(req),
      [](auto* async, auto... args) { async->Reregister(args...); }, nullptr,
      grpc::CreateCustomChannel(ChannelTarget(to.host, to.port), grpc::InsecureChannelCredentials(),
                                args));
}

void GrpcAgentLink::LaunchTasks(const AgentAddress& to, LaunchTasksRequest req,
                                std::function<void(Status)> done) {
  Call<LaunchTasksRequest, LaunchTasksReply>(
      to, "LaunchTasks", std::move(req),
      [](auto* async, auto... args) { async->LaunchTasks(args...); },
      [done = std::move(done)](const grpc::Status& gs, LaunchTasksReply& reply) {
        Status st = AgentCallOutcome(gs);
        if (st.ok() && !reply.ok()) {
          st = Internal(reply.error().empty() ? "launch failed" : reply.error());
        }
        if (done) done(st);
      });
}

void GrpcAgentLink::StepUsage(const AgentAddress& to, AgentStepUsageRequest req,
                              std::function<void(Expected<AgentStepUsageReply>)> done) {
  Call<AgentStepUsageRequest, AgentStepUsageReply>(
      to, "StepUsage", std::move(req), [](auto* async, auto... args) { async->StepUsage(args...); },
      [done = std::move(done)](const grpc::Status& gs, AgentStepUsageReply& reply) {
        Status st = AgentCallOutcome(gs);
        done(st.ok() ? Expected<AgentStepUsageReply>(std::move(reply))
                     : Expected<AgentStepUsageReply>(st));
      });
}

}  // namespace sluice::ctld
