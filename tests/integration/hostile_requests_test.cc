// Hostile requests over the controller's real gRPC port (issue 22): sizes at and past
// every bound, a huge array, malformed protobuf, a truncated HTTP/2 stream and forged
// credentials. Each is answered with an error status, the controller stays up, and a
// normal job still runs afterwards. A genuine credential of another user acts as that
// user only.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <future>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "client.grpc.pb.h"
#include "cluster_fixture.h"
#include "common/array_spec.h"
#include "common/request_bounds.h"
#include "rpc/credential.h"
#include "rpc/ident_server.h"

namespace sluice::testing {
namespace {

class HostileRequests : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    auto o = ClusterTest::Options();
    o.nodes = 1;
    return o;
  }
  void SetUp() override {
    ClusterTest::SetUp();
    auto token = FetchCredentialToken(cluster_->state_dir() + "/state/ident.sock");
    ASSERT_TRUE(token.ok()) << token.status().message();
    token_ = *token;
    channel_ = grpc::CreateChannel(cluster_->CtldAddress(), grpc::InsecureChannelCredentials());
    stub_ = ClientApi::NewStub(channel_);
  }
  void Auth(grpc::ClientContext* ctx, const std::string& token) {
    ctx->AddMetadata(kCredMetadataKey, token);
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  }
  grpc::Status Submit(const JobSpec& spec, bool test_only = true) {
    grpc::ClientContext ctx;
    Auth(&ctx, token_);
    SubmitRequest req;
    *req.mutable_spec() = spec;
    req.set_test_only(test_only);
    SubmitReply reply;
    return stub_->SubmitJob(&ctx, req, &reply);
  }
  static JobSpec Spec() {
    JobSpec s;
    s.set_script("#!/bin/sh\ntrue\n");
    s.set_work_dir("/tmp");
    return s;
  }
  void ExpectRefused(const grpc::Status& st, const std::string& message) {
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
    EXPECT_EQ(st.error_message(), message);
  }
  // Raw bytes to a method, as a client with a broken encoder would send them.
  grpc::Status SendRaw(const std::string& method, const std::string& bytes) {
    grpc::GenericStub generic(channel_);
    grpc::ClientContext ctx;
    Auth(&ctx, token_);
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    std::promise<grpc::Status> done;
    generic.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response,
                      [&](grpc::Status st) { done.set_value(st); });
    return done.get_future().get();
  }

  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<ClientApi::Stub> stub_;
};

TEST_F(HostileRequests, EveryBoundAnswersAnErrorAndTheControllerStillRunsJobs) {
  // Arrays: at MaxArraySize (default 1001) and past it; a huge range, answered at once.
  JobSpec s = Spec();
  s.set_array_spec("0-1000");
  EXPECT_TRUE(Submit(s).ok());
  s.set_array_spec("0-1001");
  ExpectRefused(Submit(s), kMsgInvalidArray);
  auto start = std::chrono::steady_clock::now();
  s.set_array_spec("5-999399999");
  ExpectRefused(Submit(s, false), kMsgInvalidArray);
  std::string many = "0-1000";
  for (int i = 0; i < 5000; ++i) many += ",0-1000";
  s.set_array_spec(many);
  EXPECT_TRUE(Submit(s).ok());  // 5001 copies of one range: merged, not expanded each
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // Script, environment, argv, strings and lists at and past their bounds.
  s = Spec();
  s.set_script("#!/bin/sh\n" + std::string(kMaxScriptBytes - 10, '#'));
  EXPECT_TRUE(Submit(s).ok());
  s.set_script(s.script() + "#");
  ExpectRefused(Submit(s), kMsgTooLong);
  s = Spec();
  for (size_t i = 0; i < kMaxEnvEntries; ++i) s.add_env("V=1");
  EXPECT_TRUE(Submit(s).ok());
  s.add_env("V=1");
  ExpectRefused(Submit(s), kMsgTooLong);
  s = Spec();
  for (size_t i = 0; i <= kMaxArgvEntries; ++i) s.add_argv("a");
  ExpectRefused(Submit(s), kMsgTooLong);
  s = Spec();
  s.set_name(std::string(kMaxStringBytes, 'n'));
  EXPECT_TRUE(Submit(s).ok());
  s.set_name(std::string(kMaxStringBytes + 1, 'n'));
  ExpectRefused(Submit(s), kMsgTooLong);
  s = Spec();
  s.set_dependency("afterok:" + std::string(kMaxListBytes, '1'));
  ExpectRefused(Submit(s), kMsgTooLong);
  // Hostlists and counts.
  s = Spec();
  s.set_nodelist("node[1-99999999]");
  ExpectRefused(Submit(s), "Invalid node name specified");
  s = Spec();
  s.set_min_nodes(INT_MAX);
  s.set_ntasks(INT_MAX);
  s.set_cpus_per_task(INT_MAX);
  EXPECT_EQ(Submit(s).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Lists in the other calls.
  {
    grpc::ClientContext ctx;
    Auth(&ctx, token_);
    GetJobsRequest req;
    for (size_t i = 0; i <= kMaxRepeatedEntries; ++i) req.add_job_ids(1);
    GetJobsReply reply;
    ExpectRefused(stub_->GetJobs(&ctx, req, &reply), kMsgTooLong);
  }
  {
    grpc::ClientContext ctx;
    Auth(&ctx, token_);
    ReservationRequest req;
    req.set_action(RESV_CREATE);
    for (const char* a : {"ReservationName=x", "StartTime=now+99999999999999999999999",
                          "Duration=10", "TRES=cpu=99999999999999999999999"}) {
      req.add_args(a);
    }
    ReservationReply reply;
    EXPECT_FALSE(stub_->Reservation(&ctx, req, &reply).ok());
  }
  // Malformed protobuf: field 1 (spec) holding bytes that are no JobSpec; a truncated
  // varint; a message past the 64 MiB transport limit.
  EXPECT_FALSE(
      SendRaw("/sluice.ClientApi/SubmitJob", std::string("\x0a\x05\xff\xff\xff\xff\xff", 7)).ok());
  EXPECT_FALSE(SendRaw("/sluice.ClientApi/GetJobs", std::string("\x08\xff\xff", 3)).ok());
  EXPECT_FALSE(SendRaw("/sluice.ClientApi/SubmitJob", std::string(65 << 20, '\x0a')).ok());
  // A truncated HTTP/2 connection: the preface and half a frame header, then gone.
  {
    const std::string addr = cluster_->CtldAddress();
    const int port = std::stoi(addr.substr(addr.rfind(':') + 1));
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    const std::string junk = std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + "\x00\xff\xff\x04";
    (void)::write(fd, junk.data(), junk.size());
    ::close(fd);
  }
  // Credentials: none, forged, and a token signed for another uid with a wrong key.
  {
    grpc::ClientContext ctx;
    GetJobsReply reply;
    EXPECT_EQ(stub_->GetJobs(&ctx, GetJobsRequest(), &reply).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  for (const std::string& forged :
       {std::string("garbage"), token_ + "x",
        SignCredential(std::string(32, 'k'), Credential{4242, 4242, INT64_MAX})}) {
    grpc::ClientContext ctx;
    Auth(&ctx, forged);
    GetJobsReply reply;
    EXPECT_EQ(stub_->GetJobs(&ctx, GetJobsRequest(), &reply).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  // A genuine credential of another user (signed with the cluster key, as the ident
  // socket would sign it for uid 4242): it acts as that user and no more. Root's held
  // job can be neither cancelled, released, requeued nor changed with it, and the
  // operator-only calls are refused; the job is untouched.
  auto key = LoadClusterKey(cluster_->state_dir() + "/state/cluster.key", false);
  ASSERT_TRUE(key.ok()) << key.status().message();
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const std::string other = SignCredential(*key, Credential{4242, 4242, now_ms + 600'000});
  const int64_t held = ClusterTest::Submit({"--hold", "--wrap", "true"});
  {
    grpc::ClientContext ctx;
    Auth(&ctx, other);
    CancelRequest req;
    req.add_job_ids(held);
    CancelReply reply;
    ASSERT_TRUE(stub_->CancelJobs(&ctx, req, &reply).ok());
    ASSERT_EQ(reply.results_size(), 1);
    EXPECT_NE(reply.results(0).code(), 0);
  }
  for (JobAction action : {JOB_ACTION_RELEASE, JOB_ACTION_REQUEUE, JOB_ACTION_UPDATE}) {
    grpc::ClientContext ctx;
    Auth(&ctx, other);
    UpdateJobRequest req;
    req.add_job_ids(held);
    req.set_action(action);
    req.set_name("stolen");
    UpdateJobReply reply;
    EXPECT_EQ(stub_->UpdateJob(&ctx, req, &reply).error_code(), grpc::StatusCode::PERMISSION_DENIED)
        << JobAction_Name(action);
  }
  {
    grpc::ClientContext ctx;
    Auth(&ctx, other);
    UpdateNodeRequest req;
    req.add_names(cluster_->NodeName(0));
    req.set_state("DOWN");
    req.set_reason("hostile");
    UpdateNodeReply reply;
    EXPECT_EQ(stub_->UpdateNode(&ctx, req, &reply).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  RunResult h = Run({"squeue", "-h", "-j", std::to_string(held), "-o", "%T %j %r"});
  EXPECT_EQ(h.out, "PENDING wrap JobHeldUser\n") << h.err;
  EXPECT_EQ(Run({"scancel", std::to_string(held)}).exit_code, 0);
  EXPECT_EQ(WaitDone(held), "CANCELLED");
  RunResult n = Run({"sinfo", "-h", "-o", "%t"});
  EXPECT_EQ(n.out, "idle\n") << n.err;

  // Still up, nothing queued by the refusals, and a normal job runs.
  RunResult q = Run({"squeue", "-h"});
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "");
  int64_t id = ClusterTest::Submit({"--wrap", "true"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
}

}  // namespace
}  // namespace sluice::testing
