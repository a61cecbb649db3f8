// ClientRelay (the agent's socket) with srun's own client (AgentRelayClient) and with raw
// frames: uid/gid come from the socket, statuses come back as the controller gave them,
// a restarted relay is reconnected to, a malformed frame ends the connection.
#include "noded/client_relay.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "client/agent_relay.h"
#include "common/step_io.h"
#include "rpc/temp_dir.h"

namespace sluice {
namespace {

class ClientRelayTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(relay_.Start(path_, Handler()).ok()); }

  ClientRelay::Handler Handler() {
    return [this](RelayRequest req) {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(req);
      RelayReply reply;
      if (req.has_launch_step() && req.launch_step().job_id() == 13) {
        reply.set_code(8);  // RESOURCE_EXHAUSTED: srun retries on it
        reply.set_error("Requested nodes are busy");
      } else if (req.has_launch_step()) {
        reply.mutable_step()->set_step_id(7);
      }
      return reply;
    };
  }

  int RawConnect() {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strcpy(a.sun_path, path_.c_str());
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.path() + "/srun.sock";
  ClientRelay relay_;
  std::mutex mu_;
  std::vector<RelayRequest> seen_;
};

TEST_F(ClientRelayTest, CallsCarryTheSocketsUidAndTheControllersStatus) {
  auto client = AgentRelayClient::Connect(path_);
  ASSERT_TRUE(client.ok()) << client.status().message();
  StepRequest step;
  step.set_job_id(5);
  Expected<StepReply> rep = (*client)->LaunchStep(step);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->step_id(), 7);
  step.set_job_id(13);
  rep = (*client)->LaunchStep(step);
  EXPECT_EQ(rep.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(rep.status().message(), "Requested nodes are busy");
  KeepaliveRequest alive;
  alive.set_job_id(5);
  EXPECT_TRUE((*client)->Keepalive(alive).ok());
  EXPECT_EQ((*client)->GetJobs({}).status().code(), Code::kFailedPrecondition);

  // A client cannot claim another uid: the relay overwrites it with SO_PEERCRED's.
  int fd = RawConnect();
  RelayRequest forged;
  forged.set_uid(4242);
  forged.mutable_keepalive()->set_job_id(5);
  ASSERT_TRUE(WriteAll(fd, EncodeFrame(FrameType::kRelay, 0, forged.SerializeAsString())));
  FrameReader reader;
  ASSERT_TRUE(ReadFrame(fd, &reader).ok());
  ::close(fd);

  std::lock_guard<std::mutex> lock(mu_);
  ASSERT_EQ(seen_.size(), 4u);
  for (const RelayRequest& r : seen_) {
    EXPECT_EQ(r.uid(), ::getuid());
    EXPECT_EQ(r.gid(), ::getgid());
  }
  EXPECT_EQ(seen_[0].launch_step().job_id(), 5);
  EXPECT_TRUE(seen_[2].has_keepalive());
}

TEST_F(ClientRelayTest, ARestartedRelayIsReconnectedTo) {
  auto client = AgentRelayClient::Connect(path_);
  ASSERT_TRUE(client.ok());
  KeepaliveRequest alive;
  ASSERT_TRUE((*client)->Keepalive(alive).ok());
  relay_.Stop();  // the agent restarts
  EXPECT_EQ((*client)->Keepalive(alive).status().message(),
            "Unable to contact slurm controller (connect failure)");
  ClientRelay again;
  ASSERT_TRUE(again.Start(path_, Handler()).ok());
  EXPECT_TRUE((*client)->Keepalive(alive).ok());
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(seen_.size(), 2u);
}

TEST_F(ClientRelayTest, AMalformedFrameEndsTheConnectionAndStopDoesNotWaitForIdleClients) {
  int idle = RawConnect();  // connected, never sends
  int fd = RawConnect();
  ASSERT_TRUE(WriteAll(fd, EncodeFrame(FrameType::kRelay, 0, "\xff\xff\xff not a proto")));
  char c;
  EXPECT_EQ(::recv(fd, &c, 1, 0), 0);  // closed without an answer
  ::close(fd);
  relay_.Stop();
  EXPECT_EQ(::recv(idle, &c, 1, 0), 0);
  ::close(idle);
  EXPECT_TRUE(seen_.empty());
}

}  // namespace
}  // namespace sluice
