// Node events posted by the controller (its AcctFeed, acct_feed.cc) into a real SQLite accounting
// store through the AcctWriter: admin DOWN/DRAIN periods, a new event when the reason
// changes, MAINT reservations, "Not responding", and the restart resync (an open event
// stays open while its node's fate is unknown, no duplicate for a node still drained).
#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr int64_t kT0 = 1'700'000'000;
using acct::NodeEventRecord;

class NodeEventOpsTest : public testing::ControllerHarness {
 protected:
  NodeEventOpsTest() : ControllerHarness(kT0) {}
  Config MakeConfig() const override {
    return testing::SmallCluster({"node01", "node02", "node03"}, "batch");
  }
  void SetUp() override {
    ControllerHarness::SetUp();
    acct::AcctConfig c;
    c.sqlite_path = dir_ + "/acct.db";
    writer_ = std::make_unique<acct::AcctWriter>(c);
    ASSERT_TRUE(writer_->Start().ok());
    Attach();
  }
  void TearDown() override {
    ctl_.reset();
    writer_.reset();
    ControllerHarness::TearDown();
  }
  void Attach() {
    ctl_->SetAccounting(writer_.get());
    ctl_->AcctResync();
  }
  void Update(const std::string& node, const std::string& state, const std::string& reason) {
    UpdateNodeRequest r;
    r.add_names(node);
    r.set_state(state);
    r.set_reason(reason);
    ASSERT_TRUE(ctl_->UpdateNode({0, 0}, r).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  std::vector<NodeEventRecord> Events() {
    EXPECT_TRUE(writer_->Flush(10'000));
    auto ev = writer_->QueryNodeEvents(0, 0);
    EXPECT_TRUE(ev.ok()) << ev.status().message();
    return ev.ok() ? *ev : std::vector<NodeEventRecord>{};
  }
  std::unique_ptr<acct::AcctWriter> writer_;
};

TEST_F(NodeEventOpsTest, AdminDownDrainAndMaintPeriods) {
  EXPECT_TRUE(Events().empty());  // every node up: nothing recorded
  Update("node01", "DOWN", "x");
  EXPECT_EQ(Events(), (std::vector<NodeEventRecord>{{"node01", kT0, 0, "DOWN", "x", 4, 0}}));
  clock_.Advance(100);
  Update("node01", "RESUME", "");
  Update("node02", "DRAIN", "y");
  clock_.Advance(50);
  Update("node02", "DRAIN", "z");  // a new reason: a new event
  clock_.Advance(10);
  Update("node02", "RESUME", "");
  ReservationRequest req;
  req.set_action(RESV_CREATE);
  for (const char* a : {"ReservationName=m", "StartTime=now", "Duration=1", "Nodes=node03",
                        "Users=root", "Flags=maint"}) {
    req.add_args(a);
  }
  ASSERT_TRUE(ctl_->Reservation({0, 0}, req).ok());
  clock_.Advance(1);
  ASSERT_TRUE(ctl_->Commit().ok());  // the once-a-second scan sees the reservation
  clock_.Advance(60);
  ASSERT_TRUE(ctl_->Commit().ok());  // ... and its end
  std::vector<NodeEventRecord> want = {
      {"node01", kT0, kT0 + 100, "DOWN", "x", 4, 0},
      {"node02", kT0 + 100, kT0 + 150, "DRAIN", "y", 4, 0},
      {"node02", kT0 + 150, kT0 + 160, "DRAIN", "z", 4, 0},
      {"node03", kT0 + 161, kT0 + 221, "MAINT", "Reserved for maintenance", 4, 0}};
  EXPECT_EQ(Events(), want);
}

TEST_F(NodeEventOpsTest, NotRespondingAndRestartResync) {
  clock_.Advance(301);  // SlurmdTimeout=300: node01 stays silent
  Register("node02");
  Register("node03");
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  Update("node02", "DRAIN", "y");
  std::vector<NodeEventRecord> open = {{"node01", kT0 + 301, 0, "DOWN", "Not responding", 4, 0},
                                       {"node02", kT0 + 301, 0, "DRAIN", "y", 4, 0}};
  EXPECT_EQ(Events(), open);
  // Restart: node02 is still drained (no duplicate); node01's fate is unknown until it
  // registers (its event stays open), then it is up again.
  clock_.Advance(20);
  ASSERT_TRUE(writer_->Flush(10'000));
  StartController();
  Attach();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Events(), open);
  clock_.Advance(5);
  Register("node01");
  std::vector<NodeEventRecord> want = {
      {"node01", kT0 + 301, kT0 + 326, "DOWN", "Not responding", 4, 0},
      {"node02", kT0 + 301, 0, "DRAIN", "y", 4, 0}};
  EXPECT_EQ(Events(), want);
}

}  // namespace
}  // namespace sluice::ctld
