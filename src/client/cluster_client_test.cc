#include "client/cluster_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/request_bounds.h"
#include "rpc/connect_failure.h"
#include "rpc/credential.h"

namespace sluice {
namespace {

// A ClientApi service that records the credential it saw and answers canned replies.
class FakeService : public ClientApi::Service {
 public:
  std::string last_cred;
  int delay_ms = 0;
  grpc::Status get_jobs_status = grpc::Status::OK;

  grpc::Status GetJobs(grpc::ServerContext* ctx, const GetJobsRequest* req,
                       GetJobsReply* rep) override {
    Record(ctx);
    if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    if (!get_jobs_status.ok()) return get_jobs_status;
    for (int64_t id : req->job_ids()) rep->add_jobs()->set_job_id(id);
    rep->set_now(1234);
    return grpc::Status::OK;
  }
  grpc::Status SubmitJob(grpc::ServerContext* ctx, const SubmitRequest* req,
                         SubmitReply* rep) override {
    Record(ctx);
    if (req->spec().partition() == "nosuch")
      return {grpc::StatusCode::INVALID_ARGUMENT, "Invalid partition name specified"};
    rep->set_job_id(42);
    return grpc::Status::OK;
  }
  grpc::Status CancelJobs(grpc::ServerContext* ctx, const CancelRequest*, CancelReply*) override {
    Record(ctx);
    return {grpc::StatusCode::PERMISSION_DENIED, "Access/permission denied"};
  }

 private:
  void Record(grpc::ServerContext* ctx) {
    auto it = ctx->client_metadata().find(kCredMetadataKey);
    last_cred =
        it == ctx->client_metadata().end() ? "" : std::string(it->second.data(), it->second.size());
  }
};

class ClusterClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    target_ = "127.0.0.1:" + std::to_string(port_);
  }
  void TearDown() override { server_->Shutdown(); }

  FakeService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::string target_;
};

TEST_F(ClusterClientTest, AttachesCredentialToEveryCall) {
  auto client = ClusterClient::Create(target_, "tok-123");
  GetJobsRequest req;
  req.add_job_ids(7);
  auto rep = client->GetJobs(req);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->jobs_size(), 1);
  EXPECT_EQ(rep->jobs(0).job_id(), 7);
  EXPECT_EQ(rep->now(), 1234);
  EXPECT_EQ(service_.last_cred, "tok-123");

  SubmitRequest sreq;
  auto srep = client->SubmitJob(sreq);
  ASSERT_TRUE(srep.ok());
  EXPECT_EQ(srep->job_id(), 42);
  EXPECT_EQ(service_.last_cred, "tok-123");
}

TEST_F(ClusterClientTest, ServerErrorsKeepCodeAndMessage) {
  auto client = ClusterClient::Create(target_, "t");
  SubmitRequest sreq;
  sreq.mutable_spec()->set_partition("nosuch");
  auto srep = client->SubmitJob(sreq);
  ASSERT_FALSE(srep.ok());
  EXPECT_EQ(srep.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(srep.status().message(), "Invalid partition name specified");

  auto crep = client->CancelJobs(CancelRequest());
  ASSERT_FALSE(crep.ok());
  EXPECT_EQ(crep.status().code(), Code::kPermissionDenied);
  EXPECT_EQ(crep.status().message(), "Access/permission denied");

  service_.get_jobs_status = {grpc::StatusCode::NOT_FOUND, "Invalid job id specified"};
  auto jrep = client->GetJobs(GetJobsRequest());
  ASSERT_FALSE(jrep.ok());
  EXPECT_EQ(jrep.status().code(), Code::kNotFound);
  EXPECT_EQ(jrep.status().message(), "Invalid job id specified");
}

// A large request the controller would refuse for its size is refused here, with the
// controller's message, and never sent (the service saw no call).
TEST_F(ClusterClientTest, OversizeRequestIsRefusedBeforeSending) {
  auto client = ClusterClient::Create(target_, "tok-big");
  SubmitRequest big;
  big.mutable_spec()->set_script("#!/bin/sh\n" + std::string(kMaxScriptBytes, '#'));
  auto srep = client->SubmitJob(big);
  ASSERT_FALSE(srep.ok());
  EXPECT_EQ(srep.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(srep.status().message(), kMsgTooLong);
  GetJobsRequest ids;
  for (size_t i = 0; i <= kMaxRepeatedEntries; ++i) ids.add_job_ids(1);
  EXPECT_EQ(client->GetJobs(ids).status().message(), kMsgTooLong);
  EXPECT_EQ(service_.last_cred, "");
  EXPECT_TRUE(client->GetJobs(GetJobsRequest()).ok());  // a normal one is sent
  EXPECT_EQ(service_.last_cred, "tok-big");
}

TEST_F(ClusterClientTest, DeadlineBecomesTimeoutError) {
  service_.delay_ms = 500;
  auto client = ClusterClient::Create(target_, "t", /*deadline_ms=*/50);
  auto rep = client->GetJobs(GetJobsRequest());
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.status().code(), Code::kUnavailable);
  EXPECT_EQ(rep.status().message(), kTimedOut);
}

// A port nothing listens on: grabbed, then closed again.
int ClosedPort() {
  int port = 0;
  ClientApi::Service svc;
  grpc::ServerBuilder b;
  b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  b.RegisterService(&svc);
  auto s = b.BuildAndStart();
  s->Shutdown();
  return port;
}

// Several controllers: a call goes past one that is down and one that stands by (neither
// carried it out) to the one that leads, and later calls start there.
TEST_F(ClusterClientTest, GoesPastDownAndStandbyControllersToTheLeader) {
  FakeService standby;
  standby.get_jobs_status = {grpc::StatusCode::UNAVAILABLE,
                             std::string(kStandbyAnswer) + " ctl2: another controller leads"};
  int standby_port = 0;
  grpc::ServerBuilder b;
  b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &standby_port);
  b.RegisterService(&standby);
  auto standby_server = b.BuildAndStart();
  ASSERT_NE(standby_server, nullptr);
  auto client = ClusterClient::Create(
      std::vector<std::string>{"127.0.0.1:" + std::to_string(ClosedPort()),
                               "127.0.0.1:" + std::to_string(standby_port), target_},
      "tok", 5000);
  GetJobsRequest req;
  req.add_job_ids(9);
  auto rep = client->GetJobs(req);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->jobs(0).job_id(), 9);
  EXPECT_EQ(standby.last_cred, "tok");  // it was asked, and said no
  EXPECT_EQ(service_.last_cred, "tok");
  standby.last_cred.clear();
  EXPECT_TRUE(client->GetJobs(req).ok());
  EXPECT_EQ(standby.last_cred, "") << "the next call went to the leader first";
  // Each answers scontrol ping except the one that is down.
  EXPECT_EQ(client->PingEach(), (std::vector<bool>{false, true, true}));
  // Nobody leads: Slurm's connect failure.
  service_.get_jobs_status = standby.get_jobs_status;
  rep = client->GetJobs(req);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.status().message(), kConnectFailure);
  standby_server->Shutdown();
}

TEST(ClusterClientNoServer, UnreachableControllerIsConnectFailure) {
  auto client = ClusterClient::Create("127.0.0.1:" + std::to_string(ClosedPort()), "t", 5000);
  auto rep = client->GetNodes(GetNodesRequest());
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.status().code(), Code::kUnavailable);
  EXPECT_EQ(rep.status().message(), "Unable to contact slurm controller (connect failure)");
}

TEST(StatusFromGrpc, MapsCodes) {
  EXPECT_TRUE(StatusFromGrpc(grpc::Status::OK).ok());
  // UNAVAILABLE: never sent (may be sent again) or lost during the call (may have run).
  EXPECT_EQ(
      StatusFromGrpc({grpc::StatusCode::UNAVAILABLE,
                      "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:9: "
                      "Failed to connect to remote host: Connection refused"})
          .message(),
      kConnectFailure);
  EXPECT_EQ(StatusFromGrpc({grpc::StatusCode::UNAVAILABLE, "Socket closed"}).message(), kLostReply);
  EXPECT_EQ(
      StatusFromGrpc({grpc::StatusCode::UNAVAILABLE, "recvmsg:Connection reset by peer"}).message(),
      kLostReply);
  EXPECT_EQ(StatusFromGrpc({grpc::StatusCode::UNAUTHENTICATED, ""}).code(), Code::kUnauthenticated);
  EXPECT_EQ(StatusFromGrpc({grpc::StatusCode::FAILED_PRECONDITION, "x"}).message(), "x");
  EXPECT_EQ(StatusFromGrpc({grpc::StatusCode::INTERNAL, "boom"}).code(), Code::kInternal);
  EXPECT_EQ(StatusFromGrpc({grpc::StatusCode::PERMISSION_DENIED, ""}).message(),
            "Access/permission denied");
}

}  // namespace
}  // namespace sluice
