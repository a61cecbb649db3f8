#include "ctld/runtime/agent_link.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "ctld/runtime/agent_outcome.h"
#include "node.grpc.pb.h"
#include "rpc/grpc_limits.h"
#include "rpc/node_auth.h"

namespace sluice::ctld {

GrpcAgentLink::GrpcAgentLink(std::string cluster_key, const Clock* clock, int threads,
                             int timeout_ms)
    : signer_(std::make_unique<NodeSigner>(std::move(cluster_key), "sluicectld", clock)),
      timeout_ms_(timeout_ms) {
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Worker(); });
}

GrpcAgentLink::~GrpcAgentLink() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void GrpcAgentLink::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void GrpcAgentLink::Worker() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stop_ and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

std::shared_ptr<grpc::Channel> GrpcAgentLink::ChannelFor(const AgentAddress& to) {
  std::string target = ChannelTarget(to.host, to.port);
  std::lock_guard<std::mutex> lock(mu_);
  auto& ch = channels_[target];
  if (!ch) ch = CreateLimitedChannel(target);
  return ch;
}

void GrpcAgentLink::Launch(const AgentAddress& to, LaunchJobRequest req,
                           std::function<void(Status)> done) {
  Post([this, to, req = std::move(req), done = std::move(done)]() mutable {
    req.set_node(to.node);
    signer_->Sign("LaunchJob", &req);
    auto stub = AgentApi::NewStub(ChannelFor(to));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
    LaunchJobReply reply;
    Status st = AgentCallOutcome(stub->LaunchJob(&ctx, req, &reply));
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
  Post([this, to, req = std::move(req), done = std::move(done)]() mutable {
    req.set_node(to.node);
    signer_->Sign("SignalJob", &req);
    auto stub = AgentApi::NewStub(ChannelFor(to));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
    SignalJobReply reply;
    Status st = AgentCallOutcome(stub->SignalJob(&ctx, req, &reply));
    if (done) done(st);
  });
}

void GrpcAgentLink::UpdateLimit(const AgentAddress& to, UpdateJobLimitRequest req) {
  Post([this, to, req = std::move(req)]() mutable {
    req.set_node(to.node);
    signer_->Sign("UpdateJobLimit", &req);
    auto stub = AgentApi::NewStub(ChannelFor(to));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
    UpdateJobLimitReply reply;
    stub->UpdateJobLimit(&ctx, req, &reply);
  });
}

// Step launches go out at once on gRPC's callback API (no dispatcher thread per call), so
// a step on N nodes costs one round trip in parallel, not N/threads in series.
void GrpcAgentLink::LaunchTasks(const AgentAddress& to, LaunchTasksRequest req,
                                std::function<void(Status)> done) {
  struct Call {
    grpc::ClientContext ctx;
    LaunchTasksRequest req;
    LaunchTasksReply reply;
    std::unique_ptr<AgentApi::Stub> stub;
    std::function<void(Status)> done;
  };
  auto* call = new Call;
  call->req = std::move(req);
  call->done = std::move(done);
  call->req.set_node(to.node);
  signer_->Sign("LaunchTasks", &call->req);
  call->stub = AgentApi::NewStub(ChannelFor(to));
  call->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
  call->stub->async()->LaunchTasks(&call->ctx, &call->req, &call->reply, [call](grpc::Status gs) {
    Status st = AgentCallOutcome(gs);
    if (st.ok() && !call->reply.ok()) {
      st = Internal(call->reply.error().empty() ? "launch failed" : call->reply.error());
    }
    if (call->done) call->done(st);
    delete call;
  });
}

void GrpcAgentLink::StepUsage(const AgentAddress& to, AgentStepUsageRequest req,
                              std::function<void(Expected<AgentStepUsageReply>)> done) {
  struct Call {
    grpc::ClientContext ctx;
    AgentStepUsageRequest req;
    AgentStepUsageReply reply;
    std::unique_ptr<AgentApi::Stub> stub;
    std::function<void(Expected<AgentStepUsageReply>)> done;
  };
  auto* call = new Call;
  call->req = std::move(req);
  call->done = std::move(done);
  call->req.set_node(to.node);
  signer_->Sign("StepUsage", &call->req);
  call->stub = AgentApi::NewStub(ChannelFor(to));
  call->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
  call->stub->async()->StepUsage(&call->ctx, &call->req, &call->reply, [call](grpc::Status gs) {
    Status st = AgentCallOutcome(gs);
    call->done(st.ok() ? Expected<AgentStepUsageReply>(std::move(call->reply))
                       : Expected<AgentStepUsageReply>(st));
    delete call;
  });
}

}  // namespace sluice::ctld
