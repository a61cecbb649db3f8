// ClientService over a real gRPC server on loopback, with the owner loop running: the
// callback-API calls (LaunchStep, Keepalive) finish from the owner thread or from the last
// agent's answer. Also NodeService's Relay: the same calls forwarded by a node agent.
#include "ctld/services/client_service.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "ctld/services/node_service.h"
#include "ctld/testing/controller_harness.h"
#include "rpc/credential.h"
#include "rpc/protocol.h"

namespace sluice::ctld::testing {
namespace {

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";

class ClientServiceTest : public ControllerHarness {
 protected:
  Config MakeConfig() const override { return SmallCluster({"node01", "node02", "node03"}, "p"); }

  void SetUp() override {
    ControllerHarness::SetUp();
    loop_ = std::make_unique<OwnerLoop>(ctl_.get(), &clock_);
    service_ = std::make_unique<ClientService>(kKey, &clock_, loop_.get());
    node_service_ = std::make_unique<NodeService>(kKey, &clock_, loop_.get());
    loop_->Start();
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    builder.RegisterService(node_service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                       grpc::InsecureChannelCredentials());
    stub_ = ClientApi::NewStub(channel);
    node_stub_ = NodeApi::NewStub(channel);
  }
  void TearDown() override {
    server_->Shutdown();
    loop_->Stop();
    ControllerHarness::TearDown();
  }

  // A client context carrying uid 1000's credential (or `token`).
  std::unique_ptr<grpc::ClientContext> Ctx(std::string token = "") {
    auto ctx = std::make_unique<grpc::ClientContext>();
    if (token.empty())
      token = SignCredential(kKey, Credential{1000, 1000, clock_.NowMs() + 60'000});
    ctx->AddMetadata(kCredMetadataKey, token);
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return ctx;
  }

  // An interactive two-node allocation (srun/salloc): its pass runs right after the commit.
  int64_t Allocate() {
    SubmitRequest req;
    req.mutable_spec()->set_interactive(true);
    req.mutable_spec()->set_min_nodes(2);
    req.mutable_spec()->set_work_dir("/tmp");
    SubmitReply rep;
    EXPECT_TRUE(stub_->SubmitJob(Ctx().get(), req, &rep).ok());
    for (int i = 0; i < 500; ++i) {  // the owner thread starts it
      GetJobsRequest q;
      q.add_job_ids(rep.job_id());
      GetJobsReply jobs;
      if (stub_->GetJobs(Ctx().get(), q, &jobs).ok() && jobs.jobs_size() == 1 &&
          jobs.jobs(0).state() == JOB_RUNNING) {
        return rep.job_id();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "allocation " << rep.job_id() << " did not start";
    return rep.job_id();
  }

  StepRequest Step(int64_t job_id) {
    StepRequest r;
    r.set_job_id(job_id);
    r.add_argv("hostname");
    r.set_io_host("127.0.0.1");
    r.set_io_port(4000);
    r.set_io_key("k");
    return r;
  }

  std::unique_ptr<OwnerLoop> loop_;
  // `req` relayed by node `node`'s agent (signed with `key`) for uid/gid `uid`.
  grpc::Status Relay(const std::string& node, RelayRequest req, RelayReply* reply,
                     const std::string& key = kKey, uint32_t uid = 1000) {
    req.set_node(node);
    req.set_uid(uid);
    req.set_gid(uid);
    NodeSigner(key, node, &clock_).Sign("Relay", &req);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return node_stub_->Relay(&ctx, req, reply);
  }

  std::unique_ptr<ClientService> service_;
  std::unique_ptr<NodeService> node_service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<ClientApi::Stub> stub_;
  std::unique_ptr<NodeApi::Stub> node_stub_;
};

TEST_F(ClientServiceTest, LaunchStepAnswersOnceEveryAgentDidWithTheirErrors) {
  int64_t job = Allocate();
  StepReply ok;
  ASSERT_TRUE(stub_->LaunchStep(Ctx().get(), Step(job), &ok).ok());
  EXPECT_EQ(ok.step_id(), 0);
  EXPECT_EQ(ok.nodes_size(), 2);
  EXPECT_EQ(ok.launch_errors_size(), 0);

  KeepaliveRequest end;  // srun reports the step's end; its CPUs are free again
  end.set_job_id(job);
  end.add_ended_step_ids(0);
  KeepaliveReply alive;
  ASSERT_TRUE(stub_->Keepalive(Ctx().get(), end, &alive).ok());

  link_.task_errors["node02"] = "cannot start sluice-stepd";
  StepReply failed;
  ASSERT_TRUE(stub_->LaunchStep(Ctx().get(), Step(job), &failed).ok());
  EXPECT_EQ(failed.step_id(), 1);
  ASSERT_EQ(failed.launch_errors_size(), 1);
  EXPECT_EQ(failed.launch_errors(0), "node02: cannot start sluice-stepd");
}

TEST_F(ClientServiceTest, CallbackCallsRefuseBadCredentialsAndStrangers) {
  int64_t job = Allocate();
  StepReply rep;
  grpc::Status bad = stub_->LaunchStep(Ctx("forged").get(), Step(job), &rep);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  KeepaliveRequest alive;
  alive.set_job_id(job);
  KeepaliveReply ka;
  EXPECT_EQ(stub_->Keepalive(Ctx("forged").get(), alive, &ka).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);

  std::string other = SignCredential(kKey, Credential{2000, 2000, clock_.NowMs() + 60'000});
  grpc::Status stranger = stub_->LaunchStep(Ctx(other).get(), Step(job), &rep);
  EXPECT_FALSE(stranger.ok());  // not the owner of the allocation
  EXPECT_TRUE(link_.tasks.empty());
}

TEST_F(ClientServiceTest, RelayedCallsRunAsTheVouchedUserOnlyFromTheJobsNodes) {
  int64_t job = Allocate();
  GetJobsRequest q;
  q.add_job_ids(job);
  GetJobsReply jobs;
  ASSERT_TRUE(stub_->GetJobs(Ctx().get(), q, &jobs).ok());
  std::set<std::string> in_job;
  for (const NodeAlloc& a : jobs.jobs(0).alloc()) in_job.insert(a.node());
  std::string inside = *in_job.begin(), outside;
  for (const char* n : {"node01", "node02", "node03"}) {
    if (!in_job.count(n)) outside = n;
  }
  ASSERT_FALSE(outside.empty());

  RelayRequest launch;
  *launch.mutable_launch_step() = Step(job);
  RelayReply rep;
  ASSERT_TRUE(Relay(inside, launch, &rep).ok());
  EXPECT_EQ(rep.step().step_id(), 0);
  EXPECT_EQ(rep.step().nodes_size(), 2);
  EXPECT_EQ(link_.tasks.size(), 2u);

  RelayRequest end;  // the step's end, relayed too: its CPUs are free for the next step
  end.mutable_keepalive()->set_job_id(job);
  end.mutable_keepalive()->add_ended_step_ids(0);
  ASSERT_TRUE(Relay(inside, end, &rep).ok());
  ASSERT_TRUE(Relay(inside, launch, &rep).ok());
  EXPECT_EQ(rep.step().step_id(), 1);

  // A node outside the job, a forged signature, an empty call: refused, nothing launched.
  size_t launched = link_.tasks.size();
  grpc::Status st = Relay(outside, launch, &rep);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(st.error_message().find("is not part of job"), std::string::npos) << st.error_message();
  EXPECT_EQ(Relay(outside, end, &rep).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Relay(inside, launch, &rep, "another-cluster-key-0123456789ab").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Relay(inside, RelayRequest(), &rep).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(link_.tasks.size(), launched);

  // The vouched uid is the caller: another user may not use the job.
  EXPECT_EQ(Relay(inside, launch, &rep, kKey, 2000).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(link_.tasks.size(), launched);
}

// scontrol token: a JWT the controller then accepts as the caller's credential.
TEST_F(ClientServiceTest, IssuedTokensAuthenticateTheirUserOnly) {
  const uint32_t nobody = LookUpUser("nobody")->uid;
  auto as = [&](uint32_t uid) {
    return Ctx(SignCredential(kKey, Credential{uid, uid, clock_.NowMs() + 60'000}));
  };
  IssueTokenRequest req;
  IssueTokenReply token;
  EXPECT_EQ(stub_->IssueToken(as(nobody).get(), req, &token).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);  // auth/jwt is off

  service_->EnableJwt(std::string(32, 'j'), /*max_lifespan_s=*/7200, false);
  ASSERT_TRUE(stub_->IssueToken(as(nobody).get(), req, &token).ok());
  EXPECT_EQ(token.expires(), clock_.Now() + 1800);  // Slurm's default lifespan
  GetJobsReply jobs;
  ASSERT_TRUE(stub_->GetJobs(Ctx(token.token()).get(), GetJobsRequest(), &jobs).ok());

  SubmitRequest submit;  // the job belongs to the token's user
  submit.mutable_spec()->set_work_dir("/tmp");
  submit.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  SubmitReply submitted;
  ASSERT_TRUE(stub_->SubmitJob(Ctx(token.token()).get(), submit, &submitted).ok());
  GetJobsRequest one;
  one.add_job_ids(submitted.job_id());
  ASSERT_TRUE(stub_->GetJobs(Ctx().get(), one, &jobs).ok());
  ASSERT_EQ(jobs.jobs_size(), 1);
  EXPECT_EQ(jobs.jobs(0).uid(), nobody);

  req.set_username("root");  // another user's token: root only
  EXPECT_EQ(stub_->IssueToken(as(nobody).get(), req, &token).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  req.set_username("nobody");
  ASSERT_TRUE(stub_->IssueToken(as(0).get(), req, &token).ok());
  req.set_lifespan_s(7201);
  EXPECT_EQ(stub_->IssueToken(as(0).get(), req, &token).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  req.set_lifespan_s(60);
  ASSERT_TRUE(stub_->IssueToken(as(nobody).get(), req, &token).ok());
  clock_.Advance(61);
  grpc::Status expired = stub_->GetJobs(Ctx(token.token()).get(), GetJobsRequest(), &jobs);
  EXPECT_EQ(expired.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(expired.error_message(), "Invalid JWT: token expired");
}

TEST_F(ClientServiceTest, SetDebugChangesTheLogLevelForAdminsOnly) {
  SetDebugRequest req;
  req.set_level("debug2");
  SetDebugReply rep;
  EXPECT_EQ(stub_->SetDebug(Ctx().get(), req, &rep).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);  // uid 1000
  EXPECT_NE(loop_->logger()->level(), spdlog::level::trace);
  auto root = Ctx(SignCredential(kKey, Credential{0, 0, clock_.NowMs() + 60'000}));
  ASSERT_TRUE(stub_->SetDebug(root.get(), req, &rep).ok());
  EXPECT_EQ(loop_->logger()->level(), spdlog::level::trace);
  req.set_level("loud");
  grpc::Status bad = stub_->SetDebug(
      Ctx(SignCredential(kKey, Credential{0, 0, clock_.NowMs() + 60'000})).get(), req, &rep);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad.error_message(), "invalid debug level: loud");
  EXPECT_EQ(loop_->logger()->level(), spdlog::level::trace);
}

TEST_F(ClientServiceTest, CommandsAndNodesOfAProtocolTwoVersionsApartAreRefused) {
  GetNodesReply nodes;
  for (int delta : {-1, 0, 1}) {  // (no header at all is version 1, within one of 2)
    auto ctx = Ctx();
    ctx->AddMetadata(kProtocolMetadataKey, std::to_string(kProtocolVersion + delta));
    EXPECT_TRUE(stub_->GetNodes(ctx.get(), GetNodesRequest(), &nodes).ok()) << delta;
  }
  auto ahead = Ctx();
  ahead->AddMetadata(kProtocolMetadataKey, std::to_string(kProtocolVersion + 2));
  grpc::Status st = stub_->GetNodes(ahead.get(), GetNodesRequest(), &nodes);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(st.error_message(),
            fmt::format("this command speaks protocol {}; this controller speaks {} and serves {} "
                        "to {}: upgrade one version at a time",
                        kProtocolVersion + 2, kProtocolVersion, kProtocolVersion - 1,
                        kProtocolVersion + 1));
  // A node's message carries its version in its signed envelope.
  HeartbeatRequest hb;
  hb.set_node("node01");
  NodeSigner(kKey, "node01", &clock_).Sign("Heartbeat", &hb);
  HeartbeatReply reply;
  grpc::ClientContext ok_ctx;
  EXPECT_TRUE(node_stub_->Heartbeat(&ok_ctx, hb, &reply).ok());
  SpeakProtocol(kProtocolVersion + 2);
  NodeSigner(kKey, "node01", &clock_).Sign("Heartbeat", &hb);
  SpeakProtocol(kProtocolVersion);
  grpc::ClientContext old_ctx;
  st = node_stub_->Heartbeat(&old_ctx, hb, &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(st.error_message().find("node node01 speaks protocol"), std::string::npos);
}

}  // namespace
}  // namespace sluice::ctld::testing
