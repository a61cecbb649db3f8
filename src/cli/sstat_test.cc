#include "cli/sstat.h"

#include <gtest/gtest.h>

#include <regex>

#include "cli/cli_test_util.h"

namespace sluice {
namespace {

TaskUsage Task(const std::string& node, int rank, int64_t rss_kb, int64_t cpu_ms, int64_t read) {
  TaskUsage t;
  t.set_node(node);
  t.set_rank(rank);
  t.set_rss_kb(rss_kb);
  t.set_vsize_kb(rss_kb * 4);
  t.set_cpu_ms(cpu_ms);
  t.set_pages(rank);
  t.set_read_bytes(read);
  t.set_write_bytes(0);
  t.add_pids(1000 + rank);
  return t;
}

StepUsageReply ThreeTasks() {
  StepUsageReply u;
  u.set_ntasks(3);
  *u.add_tasks() = Task("node1", 0, 1000, 1500, 100);
  *u.add_tasks() = Task("node1", 1, 3000, 500, 3 << 20);
  *u.add_tasks() = Task("node2", 2, 2000, 61000, 2048);
  return u;
}

TEST(Sstat, StatisticsNameTheTaskAndNodeOfTheExtremes) {
  StepUsageReply u = ThreeTasks();
  EXPECT_EQ(SstatValue("JobID", "7.0", u), "7.0");
  EXPECT_EQ(SstatValue("MaxRSS", "7.0", u), "3000K");
  EXPECT_EQ(SstatValue("MaxRSSNode", "7.0", u), "node1");
  EXPECT_EQ(SstatValue("MaxRSSTask", "7.0", u), "1");
  EXPECT_EQ(SstatValue("AveRSS", "7.0", u), "2000K");
  EXPECT_EQ(SstatValue("MaxVMSize", "7.0", u), "12000K");
  EXPECT_EQ(SstatValue("MinCPU", "7.0", u), "00:00.500");
  EXPECT_EQ(SstatValue("MinCPUNode", "7.0", u), "node1");
  EXPECT_EQ(SstatValue("MinCPUTask", "7.0", u), "1");
  EXPECT_EQ(SstatValue("AveCPU", "7.0", u), "00:21.000");
  EXPECT_EQ(SstatValue("MaxPages", "7.0", u), "2");
  EXPECT_EQ(SstatValue("MaxDiskRead", "7.0", u), "3.00M");
  EXPECT_EQ(SstatValue("MaxDiskReadTask", "7.0", u), "1");
  EXPECT_EQ(SstatValue("NTasks", "7.0", u), "3");
  EXPECT_EQ(SstatValue("Nodelist", "7.0", u), "node[1-2]");
  EXPECT_EQ(SstatValue("Pids", "7.0", u), "1000,1001,1002");
  EXPECT_EQ(SstatValue("TRESUsageInMax", "7.0", u),
            "cpu=01:01.000,energy=0,fs/disk=3145728,mem=3000K,pages=2,vmem=12000K");
  EXPECT_EQ(SstatValue("TRESUsageInMaxNode", "7.0", u),
            "cpu=node2,energy=node2,fs/disk=node1,mem=node1,pages=node2,vmem=node1");
  EXPECT_EQ(SstatValue("TRESUsageInMinTask", "7.0", u),
            "cpu=1,energy=0,fs/disk=0,mem=0,pages=0,vmem=0");
  EXPECT_EQ(SstatValue("TRESUsageOutTot", "7.0", u), "energy=0,fs/disk=0");
  // No task reported (all ended): statistics are empty, not made up.
  StepUsageReply none;
  none.set_ntasks(2);
  EXPECT_EQ(SstatValue("MaxRSS", "7.0", none), "");
  EXPECT_EQ(SstatValue("TRESUsageInAve", "7.0", none), "");
  EXPECT_EQ(SstatValue("NTasks", "7.0", none), "2");
}

// The layout the Slurm testsuite checks: -e lists the fields, 4 to a line.
TEST(Sstat, HelpFormatListsEveryField) {
  TestCli t;
  EXPECT_EQ(RunSstat({"-e"}, t.env), 0);
  EXPECT_TRUE(std::regex_search(t.out.str(), std::regex(R"(^(?:\w+\s+){50,}$)")));
  for (const char* f : {"AveDiskRead", "MinCPU", "MaxVMSize", "TRESUsageInTot", "Nodelist"})
    EXPECT_NE(t.out.str().find(f), std::string::npos) << f;
  TestCli u;
  EXPECT_EQ(RunSstat({"--usage"}, u.env), 0);
  EXPECT_TRUE(
      std::regex_search(u.out.str(), std::regex(R"(Usage: sstat \[options\] -j <job.*step)")));
  EXPECT_NE(u.out.str().find("Use --help for help"), std::string::npos);
}

TEST(Sstat, RefusesWhatItCannotReport) {
  TestCli a;
  EXPECT_EQ(RunSstat({}, a.env), 1);
  EXPECT_EQ(a.err.str(), "sstat: error: You didn't give me any jobs to stat.\n");
  TestCli b;
  EXPECT_EQ(RunSstat({"-j", "12.x"}, b.env), 1);
  EXPECT_EQ(b.err.str(), "sstat: error: Invalid job id: 12.x\n");
  TestCli c;
  EXPECT_EQ(RunSstat({"-j", "12", "-o", "JobID,Bogus"}, c.env), 1);
  EXPECT_EQ(c.err.str(), "sstat: error: Invalid field requested: \"Bogus\"\n");
  // A job without running steps (the fake controller knows none).
  TestCli d;
  EXPECT_EQ(RunSstat({"-j", "12", "-P", "-o", "JobID,MaxRSS"}, d.env), 1);
  EXPECT_EQ(d.err.str(), "sstat: error: No steps running for job 12\n");
  EXPECT_EQ(d.out.str(), "JobID|MaxRSS\n");
}

// A job that ended between listing its steps and asking their usage has no steps
// running; a named step of it is not found running.
TEST(Sstat, AJobThatEndedMeanwhileHasNoStepsRunning) {
  TestCli t;
  StepInfo* s = t.api.steps.add_steps();
  s->set_job_id(12);
  s->set_step_id(0);
  struct EndedApi : FakeApi {
    Expected<StepUsageReply> StepUsage(const StepUsageRequest&) override {
      return FailedPrecondition("job 12 is not running");
    }
  } ended;
  ended.steps = t.api.steps;
  t.env.connect = [&]() -> Expected<ClientApiInterface*> { return &ended; };
  EXPECT_EQ(RunSstat({"-j", "12"}, t.env), 1);
  EXPECT_EQ(t.err.str(), "sstat: error: No steps running for job 12\n");
  t.err.str("");
  EXPECT_EQ(RunSstat({"-j", "12.0"}, t.env), 1);
  EXPECT_EQ(t.err.str(), "sstat: error: StepId=12.0 not found running.\n");
}

// Without a step: the lowest-numbered running step, or every one with -a.
TEST(Sstat, PicksTheLowestStepUnlessAllSteps) {
  for (bool all : {false, true}) {
    TestCli t;
    for (int id : {3, 1}) {
      StepInfo* s = t.api.steps.add_steps();
      s->set_job_id(12);
      s->set_step_id(id);
    }
    t.api.step_usage = ThreeTasks();
    std::vector<std::string> args = {"-j", "12", "-n", "-p", "--format=JobID,MaxRSSNode,NTasks"};
    if (all) args.push_back("-a");
    EXPECT_EQ(RunSstat(args, t.env), 0) << t.err.str();
    EXPECT_EQ(t.out.str(), all ? "12.1|node1|3|\n12.3|node1|3|\n" : "12.1|node1|3|\n");
    ASSERT_FALSE(t.api.usage_requests.empty());
    EXPECT_EQ(t.api.usage_requests[0].step_id(), 1);
  }
}

}  // namespace
}  // namespace sluice
