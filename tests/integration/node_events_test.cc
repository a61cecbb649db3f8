// Node events end to end: an admin DOWN period and a DRAIN that spans a controller crash
// are recorded in the accounting store (one closed row each, no duplicate after the
// restart) and `sreport cluster utilization` reports them as Down, with the columns
// adding up to Reported.
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "acct/acct_store.h"
#include "cluster_fixture.h"
#include "common/text_util.h"

namespace sluice::testing {
namespace {

class NodeEvents : public ClusterTest {
 protected:
  // Cluster|Allocated|Down|PLND Down|Idle|Reserved|Reported in CPU-seconds.
  std::vector<int64_t> Utilization() {
    auto r = Run({"sreport", "-P", "-n", "-t", "seconds", "cluster", "utilization",
                  "start=now-1hours", "end=now+1hours"});
    if (r.exit_code != 0) return {};
    std::vector<int64_t> v;
    std::string line = r.out.substr(0, r.out.find('\n'));
    size_t pos = line.find('|');
    while (pos != std::string::npos) {
      size_t next = line.find('|', pos + 1);
      v.push_back(std::stoll(line.substr(pos + 1, next - pos - 1)));
      pos = next;
    }
    return v;
  }
  std::vector<acct::NodeEventRecord> StoredEvents() {
    auto store = acct::OpenSqliteAcctStore(cluster_->state_dir() + "/state/accounting.db");
    if (!store.ok()) return {};
    auto ev = (*store)->QueryNodeEvents(0, 0);
    return ev.ok() ? *ev : std::vector<acct::NodeEventRecord>{};
  }
  // Polls until the store holds `n` events, all closed.
  std::vector<acct::NodeEventRecord> WaitClosedEvents(size_t n) {
    std::vector<acct::NodeEventRecord> ev;
    for (int waited = 0; waited < 20'000; waited += 100) {
      ev = StoredEvents();
      bool closed = ev.size() == n;
      for (const auto& e : ev) closed &= e.end_time > 0;
      if (closed) break;
      usleep(100'000);
    }
    return ev;
  }
  void Scontrol(std::vector<std::string> args) {
    args.insert(args.begin(), "scontrol");
    auto r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST_F(NodeEvents, DownAndDrainPeriodsShowInSreport) {
  const int64_t cpus = Options().cpus_per_node;
  int64_t t0 = NowS();
  Scontrol({"update", "NodeName=node02", "State=DOWN", "Reason=x"});
  Scontrol({"update", "NodeName=node03", "State=DRAIN", "Reason=y"});
  usleep(2'500'000);
  Scontrol({"update", "NodeName=node02", "State=RESUME"});
  // node03 stays drained across a controller crash.
  cluster_->KillController(SIGKILL);
  ASSERT_TRUE(cluster_->StartController().ok());
  RunResult resume;  // the new controller may still be starting: retry
  for (int waited = 0; waited < 20'000; waited += 100) {
    resume = Run({"scontrol", "update", "NodeName=node03", "State=RESUME"});
    if (resume.exit_code == 0) break;
    usleep(100'000);
  }
  ASSERT_EQ(resume.exit_code, 0) << resume.err;

  // (node03 may close when it re-registers with the new controller, a moment later.)
  std::vector<acct::NodeEventRecord> ev = WaitClosedEvents(2);
  int64_t t1 = NowS();
  ASSERT_EQ(ev.size(), 2u);
  const auto& down = ev[0].node == "node02" ? ev[0] : ev[1];
  const auto& drain = ev[0].node == "node02" ? ev[1] : ev[0];
  EXPECT_EQ(down.node, "node02");
  EXPECT_EQ(down.state, "DOWN");
  EXPECT_EQ(down.reason, "x");
  EXPECT_EQ(down.cpus, cpus);
  EXPECT_GE(down.end_time - down.start_time, 2);
  EXPECT_EQ(drain.node, "node03");
  EXPECT_EQ(drain.state, "DRAIN");
  EXPECT_EQ(drain.reason, "y");
  EXPECT_GE(drain.start_time, t0);
  EXPECT_LE(drain.end_time, t1);
  // Whole seconds: a drain that ends a moment after the down period (node03 re-registers
  // at once with the new controller) may round to one second less.
  EXPECT_GE(drain.end_time - drain.start_time + 1, down.end_time - down.start_time);

  // sreport: Down = both periods x 16 CPUs; the columns add up to Reported.
  int64_t want = cpus * (down.end_time - down.start_time + drain.end_time - drain.start_time);
  std::vector<int64_t> u = Utilization();
  ASSERT_EQ(u.size(), 6u);
  EXPECT_EQ(u[1], want);
  EXPECT_EQ(u[2], 0);  // PLND Down
  EXPECT_EQ(u[0] + u[1] + u[2] + u[3] + u[4], u[5]);
  EXPECT_GT(u[3], 0);
}

}  // namespace
}  // namespace sluice::testing
