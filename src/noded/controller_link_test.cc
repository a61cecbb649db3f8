// GrpcControllerLink with several controllers (SlurmctldHost lines): past one that is down
// and one that stands by to the one that leads, past one that does not answer in time (a
// hung leader) for registrations and heartbeats, and first to the one that asked (Prefer).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/clock.h"
#include "noded/controller_link.h"
#include "rpc/connect_failure.h"

namespace sluice {
namespace {

// A NodeApi server answering heartbeats: OK, the standby answer, or after a delay.
class FakeController : public NodeApi::Service {
 public:
  explicit FakeController(grpc::Status answer = grpc::Status::OK, int delay_ms = 0)
      : answer_(std::move(answer)), delay_ms_(delay_ms) {
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    b.RegisterService(this);
    server_ = b.BuildAndStart();
  }
  ~FakeController() override { server_->Shutdown(std::chrono::system_clock::now()); }
  grpc::Status Heartbeat(grpc::ServerContext*, const HeartbeatRequest*,
                         HeartbeatReply*) override {
    ++calls;
    if (delay_ms_) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    return answer_;
  }
  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }
  std::atomic<int> calls{0};

 private:
  grpc::Status answer_;
  int delay_ms_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

std::string ClosedTarget() {
  FakeController gone;
  return gone.target();
}

TEST(ControllerLinkTest, GoesPastDownStandbyAndSilentControllersToTheLeader) {
  RealClock clock;
  const std::string down = ClosedTarget();
  FakeController standby(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(kStandbyAnswer) + " ctl2"));
  FakeController hung(grpc::Status::OK, /*delay_ms=*/2000);
  FakeController leader;
  GrpcControllerLink link({down, standby.target(), hung.target(), leader.target()},
                          {"ctl1", "ctl2", "ctl3", "ctl4"}, NodeSigner("key", "node01", &clock),
                          /*timeout_ms=*/300);
  HeartbeatRequest req;
  req.set_node("node01");
  EXPECT_TRUE(link.Heartbeat(req).ok());
  EXPECT_EQ(standby.calls, 1);
  EXPECT_EQ(hung.calls, 1);
  EXPECT_EQ(leader.calls, 1);
  EXPECT_TRUE(link.Heartbeat(req).ok());  // it stays with the leader
  EXPECT_EQ(leader.calls, 2);
  EXPECT_EQ(standby.calls, 1);
  // A controller that took over says so (Reregister): it is asked first.
  link.Prefer("ctl2");
  Status st = link.Heartbeat(req).status();
  EXPECT_EQ(standby.calls, 2);
  EXPECT_TRUE(st.ok());
}

TEST(ControllerLinkTest, NoControllerLeadingIsNotListeningButASilentOneIsNot) {
  RealClock clock;
  FakeController standby(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(kStandbyAnswer) + " ctl2"));
  {
    GrpcControllerLink link({ClosedTarget(), standby.target()}, {"ctl1", "ctl2"},
                            NodeSigner("key", "node01", &clock), 300);
    Status st = link.Heartbeat(HeartbeatRequest()).status();
    EXPECT_TRUE(ControllerNotListening(st)) << st.message();  // nobody can declare us DOWN
  }
  FakeController hung(grpc::Status::OK, /*delay_ms=*/2000);
  GrpcControllerLink link({hung.target(), standby.target()}, {"ctl1", "ctl2"},
                          NodeSigner("key", "node01", &clock), 300);
  Status st = link.Heartbeat(HeartbeatRequest()).status();
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(ControllerNotListening(st)) << st.message();  // it may be counting our silence
}

}  // namespace
}  // namespace sluice
