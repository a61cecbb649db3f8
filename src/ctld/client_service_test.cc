// ClientService over a real gRPC server on loopback, with the owner loop running: the
// callback-API calls (LaunchStep, Keepalive) finish from the owner thread or from the last
// agent's answer.
#include "ctld/client_service.h"

#include <grpcpp/grpcpp.h>

#include "ctld/controller_harness.h"
#include "rpc/credential.h"

namespace sluice::ctld::testing {
namespace {

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";

class ClientServiceTest : public ControllerHarness {
 protected:
  Config MakeConfig() const override { return SmallCluster({"node01", "node02"}, "p"); }

  void SetUp() override {
    ControllerHarness::SetUp();
    loop_ = std::make_unique<OwnerLoop>(ctl_.get(), &clock_);
    service_ = std::make_unique<ClientService>(kKey, &clock_, loop_.get());
    loop_->Start();
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = ClientApi::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    server_->Shutdown();
    loop_->Stop();
    ControllerHarness::TearDown();
  }

  // A client context carrying uid 1000's credential (or `token`).
  std::unique_ptr<grpc::ClientContext> Ctx(std::string token = "") {
    auto ctx = std::make_unique<grpc::ClientContext>();
    if (token.empty()) token = SignCredential(kKey, Credential{1000, 1000, clock_.NowMs() + 60'000});
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
  std::unique_ptr<ClientService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<ClientApi::Stub> stub_;
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
  EXPECT_EQ(stub_->Keepalive(Ctx("forged").get(), alive, &ka).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  std::string other = SignCredential(kKey, Credential{2000, 2000, clock_.NowMs() + 60'000});
  grpc::Status stranger = stub_->LaunchStep(Ctx(other).get(), Step(job), &rep);
  EXPECT_FALSE(stranger.ok());  // not the owner of the allocation
  EXPECT_TRUE(link_.tasks.empty());
}

}  // namespace
}  // namespace sluice::ctld::testing
