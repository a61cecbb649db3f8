// Association limits at scheduling time (AccountingStorageEnforce=limits): MaxJobs keeps
// a second job pending with AssocMaxJobsLimit until the first ends; GrpTRES=gres/gpu=2
// holds a job that would exceed it with AssocGrpGRES.
#include <unistd.h>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Limits : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.extra_config_lines.push_back("AccountingStorageEnforce=associations,limits");
    return o;
  }
  void Mgr(std::vector<std::string> args) {
    args.insert(args.begin(), {"sacctmgr", "-i"});
    RunResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string WaitReason(int64_t job, const std::string& want, int timeout_ms = 20'000) {
    std::string last;
    for (int waited = 0; waited < timeout_ms; waited += 100) {
      RunResult r = Run({"squeue", "-h", "-j", std::to_string(job), "-o", "%r"});
      last = r.out;
      while (!last.empty() && last.back() == '\n') last.pop_back();
      if (last == want) return last;
      usleep(100'000);
    }
    return last;
  }
};

TEST_F(Limits, MaxJobsThenGrpTresGpu) {
  Mgr({"add", "account", "physics", "grptres=gres/gpu=2"});
  Mgr({"add", "user", "root", "account=physics", "maxjobs=1"});
  int64_t first = Submit({"--wrap", "sleep 2"});
  int64_t second = Submit({"--wrap", "true"});
  ASSERT_EQ(WaitState(first, {"RUNNING"}), "RUNNING");
  EXPECT_EQ(WaitReason(second, "AssocMaxJobsLimit"), "AssocMaxJobsLimit");
  EXPECT_EQ(State(first), "RUNNING");
  EXPECT_EQ(WaitDone(first), "COMPLETED");
  EXPECT_EQ(WaitDone(second), "COMPLETED");  // runs once the first has ended
  // GrpTRES=gres/gpu=2 on the account.
  Mgr({"modify", "user", "root", "set", "maxjobs=-1"});
  int64_t big = Submit({"--gres=gpu:2", "--wrap", "sleep 60"});
  int64_t more = Submit({"--gres=gpu:1", "--wrap", "true"});
  ASSERT_EQ(WaitState(big, {"RUNNING"}), "RUNNING");
  EXPECT_EQ(WaitReason(more, "AssocGrpGRES"), "AssocGrpGRES");
  RunResult why = Run({"sluice", "why", std::to_string(more)});
  EXPECT_EQ(why.out, "Job " + std::to_string(more) +
                         " (wrap) is PENDING (AssocGrpGRES): account physics at its "
                         "GrpTRES=gres/gpu=2 limit (2 in use, this job asks 1)\n");
  Run({"scancel", std::to_string(big)});
  EXPECT_EQ(WaitDone(more), "COMPLETED");
}

}  // namespace
}  // namespace sluice::testing
