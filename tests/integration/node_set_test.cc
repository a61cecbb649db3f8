// `sluice nodes`: drain a node set with a reason and requeue its jobs in one command, resume
// it, cancel every job on a node set; real controller and agents.
#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class NodeSet : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 3;
    return o;
  }
};

TEST_F(NodeSet, DrainWithRequeueMovesTheJobsThenResumeAndCancel) {
  const int64_t a = Submit({"-w", "node01", "-o", "/dev/null", "--wrap", "sleep 300"});
  const int64_t b = Submit({"-w", "node02", "-o", "/dev/null", "--wrap", "sleep 300"});
  const int64_t c = Submit({"-w", "node03", "-o", "/dev/null", "--wrap", "sleep 300"});
  for (int64_t id : {a, b, c}) ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  RunResult drain =
      Run({"sluice", "nodes", "drain", "node[01-02]", "--reason", "bad fan", "--requeue"});
  ASSERT_EQ(drain.exit_code, 0) << drain.err;
  EXPECT_EQ(drain.out, "drained node[01-02] (reason: bad fan)\nrequeued " + std::to_string(a) +
                           "," + std::to_string(b) + "\n");
  EXPECT_EQ(Run({"sinfo", "-h", "-R", "-o", "%E|%N"}).out, "bad fan|node[01-02]\n");
  // Requeued, and held back by their -w until the nodes come back.
  EXPECT_EQ(WaitState(a, {"PENDING"}), "PENDING");
  EXPECT_EQ(WaitState(b, {"PENDING"}), "PENDING");
  EXPECT_EQ(State(c), "RUNNING");
  RunResult resume = Run({"sluice", "nodes", "resume", "node[01-02]"});
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  EXPECT_EQ(resume.out, "resumed node[01-02]\n");
  EXPECT_EQ(WaitState(a, {"RUNNING"}), "RUNNING");
  RunResult cancel = Run({"sluice", "nodes", "cancel", "node03"});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(cancel.out, "cancelled " + std::to_string(c) + "\n");
  EXPECT_EQ(WaitState(c, {"CANCELLED"}), "CANCELLED");
  // Mistakes get a clear error.
  RunResult no_reason = Run({"sluice", "nodes", "drain", "node03"});
  EXPECT_EQ(no_reason.exit_code, 1);
  EXPECT_EQ(no_reason.err, "sluice: error: drain needs --reason\n");
  RunResult unknown = Run({"sluice", "nodes", "drain", "node99", "--reason", "x"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_EQ(unknown.err, "slurm_update error: Invalid node name specified\n");
  EXPECT_EQ(Run({"sluice", "nodes", "requeue", "node03"}).out, "no job runs on node03\n");
}

}  // namespace
}  // namespace sluice::testing
