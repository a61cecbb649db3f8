// AgentService with several nodes' Agents (sluiced --nodes): each signed call reaches the
// Agent of its `node`; a call for a node not served here, or an unsigned one, reaches none.
#include "noded/agent_service.h"

#include <gtest/gtest.h>

#include <memory>

#include "node_common/test_util.h"

namespace sluice {
namespace {

class NoController : public ControllerLink {
 public:
  Expected<RegisterNodeReply> Register(RegisterNodeRequest) override { return Unavailable("no"); }
  Expected<HeartbeatReply> Heartbeat(HeartbeatRequest) override { return Unavailable("no"); }
  Status JobEnded(JobEndedRequest) override { return Unavailable("no"); }
};

class AgentServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    launcher_ =
        std::make_unique<StepdLauncher>(testing::SiblingBinary("sluice-stepd"), /*prestart=*/false);
    for (const char* name : {"n1", "n2"}) {
      auto tracker = std::make_unique<JobTracker>(tmp_.path() + "/" + name, &clock_);
      ASSERT_TRUE(tracker->Init().ok());
      AgentOptions o;
      o.node_name = name;
      o.cpus = 2;
      agents_.push_back(std::make_unique<Agent>(o, &clock_, &ctl_, tracker.get(), launcher_.get()));
      trackers_.push_back(std::move(tracker));
    }
    service_ = std::make_unique<AgentService>(
        std::map<std::string, Agent*>{{"n1", agents_[0].get()}, {"n2", agents_[1].get()}},
        &verifier_);
  }

  // A launch whose batch job says it is for `job_node`, sent to the service for `to`;
  // the Agent that gets it refuses it unless it is that node, and says which it is.
  grpc::Status Launch(const std::string& to, const std::string& job_node, LaunchJobReply* reply,
                      bool sign = true) {
    LaunchJobRequest req;
    req.set_node(to);
    *req.mutable_launch() = testing::MakeLaunch(7, "#!/bin/bash\ntrue\n", tmp_.path());
    req.mutable_launch()->mutable_local()->set_node(job_node);
    if (sign) signer_.Sign("LaunchJob", &req);
    return service_->LaunchJob(nullptr, &req, reply);
  }

  testing::TempDir tmp_;
  ManualClock clock_{1000};
  NoController ctl_;
  std::unique_ptr<StepdLauncher> launcher_;
  std::vector<std::unique_ptr<JobTracker>> trackers_;
  std::vector<std::unique_ptr<Agent>> agents_;
  NodeSigner signer_{"key", kControllerSender, &clock_};
  NodeVerifier verifier_{"key", &clock_};
  std::unique_ptr<AgentService> service_;
};

TEST_F(AgentServiceTest, EachCallReachesTheAgentOfItsNode) {
  LaunchJobReply to_n2;
  ASSERT_TRUE(Launch("n2", "n1", &to_n2).ok());
  EXPECT_EQ(to_n2.error(), "launch for node n1 sent to node n2");
  LaunchJobReply to_n1;
  ASSERT_TRUE(Launch("n1", "n2", &to_n1).ok());
  EXPECT_EQ(to_n1.error(), "launch for node n2 sent to node n1");
}

TEST_F(AgentServiceTest, ANodeNotServedHereIsRefused) {
  LaunchJobReply reply;
  grpc::Status st = Launch("n3", "n3", &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "node n3 is not served by this agent");
  // Without a node name a process of several nodes cannot tell which is meant.
  st = Launch("", "n1", &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(AgentServiceTest, AnUnsignedCallReachesNoAgent) {
  LaunchJobReply reply;
  grpc::Status st = Launch("n1", "n2", &reply, /*sign=*/false);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(reply.error().empty());
}

TEST_F(AgentServiceTest, AnOlderControllerWithoutNodeReachesTheOnlyAgent) {
  AgentService single(agents_[1].get(), &verifier_);
  LaunchJobRequest req;
  *req.mutable_launch() = testing::MakeLaunch(7, "#!/bin/bash\ntrue\n", tmp_.path());
  req.mutable_launch()->mutable_local()->set_node("n1");
  signer_.Sign("LaunchJob", &req);
  LaunchJobReply reply;
  ASSERT_TRUE(single.LaunchJob(nullptr, &req, &reply).ok());
  EXPECT_EQ(reply.error(), "launch for node n1 sent to node n2");
}

}  // namespace
}  // namespace sluice
