// Security at the daemon boundary: MUNGE authentication (AuthType=auth/munge with a
// private munged; commands work without the ident socket, forged and replayed MUNGE
// credentials are refused), forged/replayed/stale agent messages refused by a real
// controller, and oversize requests refused with Slurm's message without harming it
// (the environment cap is unit-tested: exec(2) limits are lower than it).
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <grpcpp/grpcpp.h>

#include "client.grpc.pb.h"
#include "cluster_fixture.h"
#include "common/clock.h"
#include "node.grpc.pb.h"
#include "rpc/credential.h"
#include "rpc/munge_auth.h"
#include "rpc/munged_process.h"
#include "rpc/node_auth.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

class MungeCluster : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    auto o = ClusterTest::Options();
    o.nodes = 2;
    o.munge = true;
    return o;
  }
  void SetUp() override {
    if (!MungeSupported()) GTEST_SKIP() << "sluice was built without libmunge";
    if (FindMunged().empty()) GTEST_SKIP() << "munged is not installed (apt-get install munge)";
    ClusterTest::SetUp();
  }
  std::string MungeSocket() const { return cluster_->state_dir() + "/munge/munge.socket"; }
  grpc::Status Exchange(const std::string& credential, AuthMungeReply* reply) {
    auto stub = ClientApi::NewStub(
        grpc::CreateChannel(cluster_->CtldAddress(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    AuthMungeRequest req;
    req.set_credential(credential);
    return stub->AuthMunge(&ctx, req, reply);
  }
};

TEST_F(MungeCluster, CommandsWorkWithoutTheIdentSocketAsTheRightUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a command as another user";
  if (getpwnam("sluicetest_a") == nullptr) {
    RunCommand({"useradd", "--no-create-home", "--shell", "/bin/bash", "sluicetest_a"});
  }
  const passwd* pw = getpwnam("sluicetest_a");
  ASSERT_NE(pw, nullptr);
  uid_t uid = pw->pw_uid;
  gid_t gid = pw->pw_gid;
  // Take the ident socket away: only MUNGE can authenticate the commands now.
  const std::string ident = cluster_->state_dir() + "/state/ident.sock";
  ASSERT_TRUE(fs::exists(ident));
  fs::rename(ident, ident + ".away");
  RunOptions o;
  o.uid = uid;
  o.gid = gid;
  auto sub = Run({"sbatch", "--parsable", "-o", "m-%j.out", "--wrap", "id -u; id -g"}, o);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  int64_t id = std::stoll(sub.out);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile(work_dir() + "/m-" + std::to_string(id) + ".out"),
            std::to_string(uid) + "\n" + std::to_string(gid) + "\n");
  auto q = Run({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-o", "%u"}, o);
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "sluicetest_a\n");
  // The MUNGE identity is the caller's: A cannot drain nodes (root can).
  auto drain = Run({"scontrol", "update", "NodeName=node01", "State=DRAIN", "Reason=x"}, o);
  EXPECT_EQ(drain.exit_code, 1);
  EXPECT_NE(drain.err.find("Access/permission denied"), std::string::npos) << drain.err;
  fs::rename(ident + ".away", ident);
}

TEST_F(MungeCluster, ForgedAndReplayedCredentialsAreRejected) {
  AuthMungeReply reply;
  grpc::Status garbage = Exchange("MUNGE:AAAAgarbage:", &reply);
  EXPECT_EQ(garbage.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(garbage.error_message().rfind("Invalid MUNGE credential: ", 0), 0u)
      << garbage.error_message();
  EXPECT_EQ(Exchange("", &reply).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // A credential from a munged with another key (another cluster, or a forger's).
  {
    char tmpl[] = "/tmp/sluice-munge-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    auto other = StartMunged(std::string(tmpl) + "/munge");
    ASSERT_TRUE(other.ok()) << other.status().message();
    auto foreign = MungeEncode(other->socket);
    StopMunged(*other);
    fs::remove_all(tmpl);
    ASSERT_TRUE(foreign.ok());
    grpc::Status st = Exchange(*foreign, &reply);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << st.error_message();
  }
  // A good credential works once; the same credential again is a replay.
  auto cred = MungeEncode(MungeSocket());
  ASSERT_TRUE(cred.ok()) << cred.status().message();
  grpc::Status first = Exchange(*cred, &reply);
  ASSERT_TRUE(first.ok()) << first.error_message();
  EXPECT_EQ(reply.uid(), getuid());
  EXPECT_EQ(reply.gid(), getgid());
  EXPECT_FALSE(reply.token().empty());
  AuthMungeReply again;
  grpc::Status replay = Exchange(*cred, &again);
  EXPECT_EQ(replay.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(replay.error_message(), "Invalid MUNGE credential: Replayed credential");
  EXPECT_TRUE(again.token().empty());
  // The token from the exchange authenticates ordinary calls.
  auto stub = ClientApi::NewStub(
      grpc::CreateChannel(cluster_->CtldAddress(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata(kCredMetadataKey, reply.token());
  GetNodesReply nodes;
  ASSERT_TRUE(stub->GetNodes(&ctx, GetNodesRequest(), &nodes).ok());
  EXPECT_EQ(nodes.nodes_size(), 2);
}

class NodeMessages : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    auto o = ClusterTest::Options();
    o.nodes = 1;
    return o;
  }
  std::string Key() {
    auto key = LoadClusterKey(cluster_->state_dir() + "/state/cluster.key", false);
    EXPECT_TRUE(key.ok()) << key.status().message();
    return key.ok() ? *key : "";
  }
  grpc::Status Send(const HeartbeatRequest& req) {
    auto stub = NodeApi::NewStub(
        grpc::CreateChannel(cluster_->CtldAddress(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    HeartbeatReply reply;
    return stub->Heartbeat(&ctx, req, &reply);
  }
};

TEST_F(NodeMessages, ForgedReplayedAndStaleAgentMessagesAreRejected) {
  RealClock clock;
  HeartbeatRequest hb;
  hb.set_node("node01");
  NodeSigner(Key(), "node01", &clock).Sign("Heartbeat", &hb);
  ASSERT_TRUE(Send(hb).ok());
  grpc::Status replay = Send(hb);
  EXPECT_EQ(replay.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(replay.error_message().find("replayed message"), std::string::npos)
      << replay.error_message();

  HeartbeatRequest forged;
  forged.set_node("node01");
  NodeSigner(std::string(64, 'f'), "node01", &clock).Sign("Heartbeat", &forged);
  grpc::Status bad_mac = Send(forged);
  EXPECT_EQ(bad_mac.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(bad_mac.error_message().find("bad MAC"), std::string::npos) << bad_mac.error_message();

  HeartbeatRequest tampered = hb;  // valid signature, body changed afterwards
  tampered.add_running_job_ids(42);
  EXPECT_EQ(Send(tampered).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  ManualClock past(clock.NowMs() / 1000 - 2 * kMaxSkewMs / 1000);
  HeartbeatRequest stale;
  stale.set_node("node01");
  NodeSigner(Key(), "node01", &past).Sign("Heartbeat", &stale);
  grpc::Status old = Send(stale);
  EXPECT_EQ(old.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(old.error_message().find("outside the allowed clock skew"), std::string::npos)
      << old.error_message();

  HeartbeatRequest impostor;  // signed by node01's key holder but claiming another node
  impostor.set_node("node02");
  NodeSigner(Key(), "node01", &clock).Sign("Heartbeat", &impostor);
  EXPECT_EQ(Send(impostor).error_code(), grpc::StatusCode::PERMISSION_DENIED);

  // The controller is unharmed and the node still idle.
  auto sinfo = Run({"sinfo", "-h", "-o", "%T"});
  EXPECT_EQ(sinfo.out, "idle\n");
}

class RequestLimits : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    auto o = ClusterTest::Options();
    o.nodes = 1;
    return o;
  }
};

TEST_F(RequestLimits, OversizeSubmissionsGetSlurmsErrorAndTheControllerSurvives) {
  const std::string too_long =
      "sbatch: error: Batch job submission failed: Pathname of a file, directory or other "
      "parameter too long\n";
  const std::string big = work_dir() + "/big.sh";
  {
    std::ofstream f(big);
    f << "#!/bin/sh\n# " << std::string(5 << 20, 'x') << "\ntrue\n";
  }
  auto script = Run({"sbatch", big});
  EXPECT_EQ(script.exit_code, 1);
  EXPECT_EQ(script.err, too_long);
  auto name = Run({"sbatch", "-J", std::string(2000, 'n'), "--wrap", "true"});
  EXPECT_EQ(name.exit_code, 1);
  EXPECT_EQ(name.err, too_long);
  auto array = Run({"sbatch", "--array=0-5000", "--wrap", "true"});
  EXPECT_EQ(array.exit_code, 1);
  EXPECT_EQ(array.err,
            "sbatch: error: Batch job submission failed: Invalid job array specification\n");
  // Past the transport limit (64 MiB): sbatch stops reading at the script bound.
  {
    std::ofstream f(big);
    f << "#!/bin/sh\n# " << std::string(65 << 20, 'x') << "\n";
  }
  auto huge = Run({"sbatch", big});
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_EQ(huge.err, too_long);
  fs::remove(big);
  // Still serving.
  int64_t id = Submit({"--wrap", "true"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
}

}  // namespace
}  // namespace sluice::testing
