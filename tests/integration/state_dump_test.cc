// `sluice state dump` / `restore`: the runbook's "database lost" drill. A dump taken while
// the controller runs brings the queue back after its state database is gone: the same
// job ids and states, the node flags, and ids that go on after the highest one.
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class StateDumpRestore : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 2;
    return o;
  }
  RunResult Sluice(std::vector<std::string> args) {
    args.insert(args.begin(), {"sluice", "state"});
    args.insert(args.begin() + 2, {"-f", cluster_->conf_path()});
    return Run(args);
  }
};

TEST_F(StateDumpRestore, DumpWhileRunningRestoresTheQueueAfterTheDatabaseIsLost) {
  const int64_t done = Submit({"-o", "/dev/null", "--wrap", "true"});
  ASSERT_EQ(WaitDone(done), "COMPLETED");
  const int64_t held = Submit({"-H", "-J", "keepme", "-o", "/dev/null", "--wrap", "true"});
  ASSERT_EQ(
      Run({"scontrol", "update", "NodeName=node02", "State=DRAIN", "Reason=bad_fan"}).exit_code, 0);
  const std::string dump = work_dir() + "/state.dump";
  RunResult d = Sluice({"dump", "-o", dump});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("jobs=2 "), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("nodes=1 "), std::string::npos) << d.out;
  EXPECT_EQ(std::filesystem::status(dump).permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);
  // Not while the controller runs, and not into a store that holds anything.
  RunResult busy = Sluice({"restore", dump});
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_NE(busy.err.find("runs with this config: stop every controller first"), std::string::npos)
      << busy.err;
  cluster_->KillController(SIGTERM);
  RunResult full = Sluice({"restore", dump});
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_NE(full.err.find("the state store is not empty"), std::string::npos) << full.err;
  // The database is lost.
  for (const char* f : {"sluicectld.db", "sluicectld.db-wal", "sluicectld.db-shm"})
    std::filesystem::remove(cluster_->state_dir() + "/state/" + f);
  RunResult restored = Sluice({"restore", dump});
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_NE(restored.out.find("restored jobs=2 "), std::string::npos) << restored.out;
  ASSERT_TRUE(cluster_->StartController().ok());
  EXPECT_EQ(WaitState(held, {"PENDING"}), "PENDING");
  EXPECT_EQ(Run({"squeue", "-h", "-j", std::to_string(held), "-o", "%j %r"}).out,
            "keepme JobHeldUser\n");
  EXPECT_EQ(State(done), "COMPLETED");
  EXPECT_NE(Run({"sinfo", "-h", "-R", "-o", "%n %E"}).out.find("node02 bad_fan"),
            std::string::npos);
  EXPECT_GT(Submit({"-H", "-o", "/dev/null", "--wrap", "true"}), held);
  // A file that is not a dump is refused as such.
  WriteFile("junk.dump", "not a dump");
  RunResult junk = Sluice({"restore", work_dir() + "/junk.dump"});
  EXPECT_EQ(junk.exit_code, 1);
  EXPECT_NE(junk.err.find("is not a sluice state dump"), std::string::npos) << junk.err;
}

}  // namespace
}  // namespace sluice::testing
