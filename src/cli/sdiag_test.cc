#include "cli/sdiag.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace sluice {
namespace {

GetStatsReply Sample() {
  GetStatsReply s;
  s.set_now(Ref(12, 0, 0));
  s.set_data_since(Ref(11, 0, 0));
  s.set_jobs_submitted(12);
  s.set_jobs_started(10);
  s.set_jobs_completed(7);
  s.set_jobs_cancelled(2);
  s.set_jobs_failed(1);
  s.set_jobs_pending(2);
  s.set_jobs_running(1);
  s.set_sched_cycles(4);
  s.set_sched_last_us(90);
  s.set_sched_max_us(400);
  s.set_sched_total_us(800);
  s.set_sched_total_depth(12);
  s.set_sched_last_depth(2);
  s.set_backfilled_jobs(3);
  RpcMethodStats* m = s.add_rpcs();
  m->set_method("GetJobs");
  m->set_count(5);
  m->set_total_us(500);
  m = s.add_rpcs();
  m->set_method("SubmitJob");
  m->set_count(12);
  m->set_total_us(2400);
  return s;
}

TEST(Sdiag, PrintsSlurmsSectionsWithMeansAndRpcsByCount) {
  TestCli t;
  t.api.stats = Sample();
  ASSERT_EQ(RunSdiag({}, t.env), 0) << t.err.str();
  const std::string out = t.out.str();
  for (const char* want :
       {"sdiag output at Mon Nov 30 12:00:00 2026 (1796040000)\n",
        "Data since      Mon Nov 30 11:00:00 2026 (1796036400)\n", "Jobs submitted: 12\n",
        "Jobs started:   10\n", "Jobs completed: 7\n", "Jobs canceled:  2\n", "Jobs failed:    1\n",
        "Jobs pending:   2\n", "Jobs running:   1\n", "\tLast cycle:   90\n",
        "\tMax cycle:    400\n", "\tTotal cycles: 4\n", "\tMean cycle:   200\n",
        "\tMean depth cycle:  3\n", "\tCycles per minute: 0\n", "\tLast queue length: 2\n",
        "\tTotal backfilled jobs (since last slurm start): 3\n"})
    EXPECT_NE(out.find(want), std::string::npos) << want << "\n" << out;
  // By count, most first.
  const size_t submit = out.find("\tSubmitJob"), get = out.find("\tGetJobs");
  ASSERT_NE(submit, std::string::npos) << out;
  EXPECT_LT(submit, get);
  EXPECT_NE(out.find("count:12     ave_time:200    total_time:2400"), std::string::npos) << out;
}

TEST(Sdiag, JsonResetAndBadInput) {
  TestCli t;
  t.api.stats = Sample();
  ASSERT_EQ(RunSdiag({"--json"}, t.env), 0);
  auto j = nlohmann::json::parse(t.out.str());
  EXPECT_EQ(j["statistics"]["jobs_submitted"], 12);
  EXPECT_EQ(j["statistics"]["schedule_cycle_mean"], 200);
  EXPECT_EQ(j["statistics"]["rpcs_by_message_type"].size(), 2u);
  EXPECT_TRUE(j["errors"].empty());

  TestCli r;
  ASSERT_EQ(RunSdiag({"-r"}, r.env), 0);
  ASSERT_EQ(r.api.stats_requests.size(), 1u);
  EXPECT_TRUE(r.api.stats_requests[0].reset());
  EXPECT_EQ(r.out.str(), "Reset scheduling statistics\n");

  TestCli denied;
  denied.api.fail = PermissionDenied("Access/permission denied");
  EXPECT_EQ(RunSdiag({"--reset"}, denied.env), 1);
  EXPECT_EQ(denied.err.str(), "sdiag: error: Access/permission denied\n");

  TestCli bad;
  EXPECT_EQ(RunSdiag({"--bogus"}, bad.env), 1);
  EXPECT_EQ(bad.api.stats_requests.size(), 0u);
  EXPECT_NE(bad.err.str().find("unrecognized option '--bogus'"), std::string::npos);
}

}  // namespace
}  // namespace sluice
