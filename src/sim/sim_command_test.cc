// End-to-end tests of `sluice sim` (SimMain) on small trace files: the reports, the
// per-job CSV, byte-identical reruns and error handling.
#include "sim/sim_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sluice::sim {
namespace {

using ::testing::HasSubstr;

class SimCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("sluice_sim_cmd_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    // 4 processors; job 3 needs all of them behind job 1 and 2; job 4 is too wide.
    std::ofstream(Path("t.swf")) << "; MaxProcs: 4\n"
                                    "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 1 -1 -1\n"
                                    "2 0 0 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1\n"
                                    "3 10 0 20 4 -1 -1 4 20 -1 1 1 1 -1 -1 1 -1 -1\n"
                                    "4 20 0 20 8 -1 -1 8 20 -1 1 1 1 -1 -1 1 -1 -1\n"
                                    "5 30 0 -1 8 -1 -1 8 20 -1 5 1 1 -1 -1 1 -1 -1\n";
    std::ofstream(Path("g.csv")) << "job_id,submit_s,gpus,nodes,runtime_s,user,status\n"
                                    "j1,0,8,,100,,\nj2,0,16,,50,,\nj3,10,2,,10,,\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  int Run(std::vector<std::string> args, std::string* out, std::string* err) {
    args.insert(args.begin(), "sim");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    std::ostringstream out_stream, err_stream;
    int rc = SimMain(static_cast<int>(argv.size()), argv.data(), out_stream, err_stream);
    *out = out_stream.str();
    *err = err_stream.str();
    return rc;
  }

  std::filesystem::path dir_;
};

TEST_F(SimCommandTest, TextReport) {
  std::string out, err;
  ASSERT_EQ(Run({"--trace", Path("t.swf"), "--policy", "fcfs"}, &out, &err), 0) << err;
  EXPECT_THAT(out,
              HasSubstr("trace                   t.swf (4 jobs, 1 dropped by cleaning rules)\n"));
  EXPECT_THAT(out, HasSubstr("policy                  fcfs\n"));
  EXPECT_THAT(out, HasSubstr("cluster                 4 nodes, 4 CPUs, 0 GPUs\n"));
  EXPECT_THAT(out, HasSubstr("jobs                    3 started, 1 rejected, 0 never started\n"));
  // Job 3 waits for job 1 (100 s): starts at 100, ends 120.
  EXPECT_THAT(out, HasSubstr("makespan_s              120\n"));
  EXPECT_THAT(out, HasSubstr("wait_s p50/p95/p99      0 / 90 / 90\n"));
  EXPECT_THAT(out, HasSubstr("utilization (CPU)       0.7917\n"));  // (200+100+80)/(4*120)
}

TEST_F(SimCommandTest, JsonAndJobsCsvAreByteIdenticalAcrossRuns) {
  std::string first, second, err;
  ASSERT_EQ(
      Run({"--trace", Path("t.swf"), "--policy", "fcfs", "--json", "--jobs-csv", Path("a.csv")},
          &first, &err),
      0)
      << err;
  ASSERT_EQ(
      Run({"--trace", Path("t.swf"), "--policy", "fcfs", "--json", "--jobs-csv", Path("b.csv")},
          &second, &err),
      0);
  EXPECT_EQ(first, second);
  EXPECT_THAT(first, HasSubstr("\"kind\": \"cpu\",\n"));
  EXPECT_THAT(first, HasSubstr("\"mean_wait_s\": 30.000,\n"));
  EXPECT_THAT(first, HasSubstr("\"rejected\": 1,\n"));
  EXPECT_EQ(first.back(), '\n');
  std::stringstream a, b;
  a << std::ifstream(Path("a.csv")).rdbuf();
  b << std::ifstream(Path("b.csv")).rdbuf();
  EXPECT_EQ(a.str(), b.str());
  EXPECT_EQ(a.str(),
            "job_id,trace_id,submit_s,start_s,end_s,wait_s,run_s,nodes,cpus,gpus,time_limit_s,"
            "state\n"
            "1,1,0,0,100,0,100,2,2,0,100,completed\n"
            "2,2,0,0,50,0,50,2,2,0,60,completed\n"
            "3,3,10,100,120,90,20,4,4,0,20,completed\n"
            "4,4,20,,,,20,8,8,0,20,rejected\n");
}

TEST_F(SimCommandTest, BackfillPolicies) {
  // 4 one-CPU nodes: job 1 holds 2 until 100, job 2 holds 2 until 50 (limit 60); job 3
  // (4 CPUs) waits for both; a short 1-CPU job submitted at 20 with limit 20 fits in the
  // gap before job 3's reservation at 100 under backfill, but waits behind job 3 in FIFO.
  std::ofstream(Path("bf.swf")) << "; MaxProcs: 4\n"
                                   "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 1 -1 -1\n"
                                   "2 0 0 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1\n"
                                   "3 10 0 20 4 -1 -1 4 20 -1 1 1 1 -1 -1 1 -1 -1\n"
                                   "4 60 0 20 1 -1 -1 1 20 -1 1 1 1 -1 -1 1 -1 -1\n";
  std::string out, err;
  ASSERT_EQ(Run({"--trace", Path("bf.swf"), "--jobs-csv", Path("easy.csv")}, &out, &err), 0) << err;
  EXPECT_THAT(out, HasSubstr("policy                  easy\n"));  // the default
  std::stringstream easy;
  easy << std::ifstream(Path("easy.csv")).rdbuf();
  EXPECT_THAT(easy.str(), HasSubstr("4,4,60,60,80,0,20,1,1,0,20,completed\n"));
  EXPECT_THAT(easy.str(), HasSubstr("3,3,10,100,120,90,20,4,4,0,20,completed\n"));

  ASSERT_EQ(
      Run({"--trace", Path("bf.swf"), "--policy", "conservative", "--jobs-csv", Path("cons.csv")},
          &out, &err),
      0)
      << err;
  EXPECT_THAT(out, HasSubstr("policy                  conservative\n"));
  std::stringstream cons;
  cons << std::ifstream(Path("cons.csv")).rdbuf();
  EXPECT_EQ(cons.str(), easy.str());

  ASSERT_EQ(Run({"--trace", Path("bf.swf"), "--policy", "fcfs", "--jobs-csv", Path("fifo.csv")},
                &out, &err),
            0);
  std::stringstream fifo;
  fifo << std::ifstream(Path("fifo.csv")).rdbuf();
  EXPECT_THAT(fifo.str(), HasSubstr("4,4,60,120,140,60,20,1,1,0,20,completed\n"));
}

TEST_F(SimCommandTest, GpuTraceReport) {
  std::string out, err;
  ASSERT_EQ(Run({"--trace", Path("g.csv"), "--policy", "fcfs", "--nodes", "3"}, &out, &err), 0)
      << err;
  EXPECT_THAT(out, HasSubstr("cluster                 3 nodes, 24 CPUs, 24 GPUs\n"));
  // j1 takes node 1, j2 nodes 2-3; j3 waits for j2 (50 s).
  EXPECT_THAT(out, HasSubstr("makespan_s              100\n"));
  EXPECT_THAT(out, HasSubstr("utilization (GPU)       0.6750\n"));  // (800+800+20)/(24*100)
  EXPECT_THAT(out, HasSubstr("jct_s mean              "));
}

TEST_F(SimCommandTest, ClusterConfigReplacesDerivedCluster) {
  std::ofstream(Path("sluice.conf")) << "ClusterName=simtest\n"
                                        "NodeName=big[1-2] CPUs=8 RealMemory=1000\n"
                                        "PartitionName=all Nodes=big[1-2] Default=YES\n";
  std::string out, err;
  ASSERT_EQ(Run({"--trace", Path("t.swf"), "--policy", "fcfs", "--cluster", Path("sluice.conf")},
                &out, &err),
            0)
      << err;
  EXPECT_THAT(out, HasSubstr("cluster                 2 nodes, 16 CPUs, 0 GPUs\n"));
  EXPECT_THAT(out, HasSubstr("jobs                    4 started, 0 rejected, 0 never started\n"));
}

TEST_F(SimCommandTest, CompareTableOneRowPerPolicyDeterministic) {
  std::string out, err;
  const std::vector<std::string> args = {"--trace", Path("t.swf"), "--compare",
                                         "fcfs,easy,easy-pred-sjbf,f1"};
  ASSERT_EQ(Run(args, &out, &err), 0) << err;
  EXPECT_THAT(out, HasSubstr("trace t.swf (4 jobs, 4 nodes, 4 CPUs, 0 GPUs); reference easy\n"));
  EXPECT_THAT(out, HasSubstr("| policy "));
  EXPECT_THAT(out, HasSubstr("bsld max"));
  EXPECT_THAT(out, HasSubstr("wait ratio"));
  // Waits 0, 0, 90 under every policy (job 3 needs all 4 processors): mean 30, p99 90;
  // bounded slowdowns 1, 1, (90 + 20) / 20 = 5.5 -> mean 2.5, max 5.5; same waits as the
  // reference -> wait ratio 1.
  for (const char* policy : {"fcfs", "easy", "easy-pred-sjbf", "f1"}) {
    EXPECT_THAT(out,
                HasSubstr(fmt::format("| {:<22} |       30.0 |        0 |       90 |       90 |"
                                      "     2.50 |       5.5 |",
                                      policy)))
        << out;
  }
  EXPECT_THAT(out, HasSubstr("|       1.00 |\n"));
  std::string again;
  ASSERT_EQ(Run(args, &again, &err), 0);
  EXPECT_EQ(out, again);
}

TEST_F(SimCommandTest, ReportWritesSelfContainedHtmlWithSvgPlots) {
  std::string out, err;
  const std::string dir = Path("report");
  ASSERT_EQ(Run({"--trace", Path("t.swf"), "--compare", "easy,easy-pred-sjbf", "--report", dir},
                &out, &err),
            0)
      << err;
  std::ifstream file(dir + "/index.html");
  std::stringstream html;
  html << file.rdbuf();
  const std::string text = html.str();
  EXPECT_THAT(text, HasSubstr("<!DOCTYPE html>"));
  for (const char* title : {"CPU utilization over time", "Queue length over time", "Wait-time CDF",
                            "Mean bounded slowdown by job size (CPUs)",
                            "Mean bounded slowdown by run time", "Run-time estimate error"}) {
    EXPECT_THAT(text, HasSubstr(title));
  }
  size_t svgs = 0;
  for (size_t at = text.find("<svg"); at != std::string::npos; at = text.find("<svg", at + 1))
    ++svgs;
  EXPECT_EQ(svgs, 6u);
  EXPECT_THAT(text, HasSubstr("easy-pred-sjbf"));
  EXPECT_EQ(text.find("<script"), std::string::npos);
  EXPECT_EQ(text.find("http://", text.find("<body")), text.find("http://www.w3.org/2000/svg"));
  // The compare table heads the page (mean wait 30 s: waits 0, 0, 90). Reruns are
  // byte-identical.
  EXPECT_THAT(text, HasSubstr("|       30.0 |"));
  ASSERT_EQ(Run({"--trace", Path("t.swf"), "--compare", "easy,easy-pred-sjbf", "--report", dir},
                &out, &err),
            0);
  std::ifstream again_file(dir + "/index.html");
  std::stringstream again;
  again << again_file.rdbuf();
  EXPECT_EQ(text, again.str());
}

TEST_F(SimCommandTest, PublishedFilterDropsJobsWiderThanMaxProcs) {
  std::string out, err;
  ASSERT_EQ(Run({"--trace", Path("t.swf"), "--filter", "published"}, &out, &err), 0) << err;
  EXPECT_THAT(out, HasSubstr("t.swf (3 jobs, 2 dropped by cleaning rules)"));
  EXPECT_THAT(out, HasSubstr("jobs                    3 started, 0 rejected, 0 never started\n"));
  EXPECT_EQ(Run({"--trace", Path("t.swf"), "--filter", "odd"}, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("--filter odd"));
}

TEST_F(SimCommandTest, Errors) {
  std::string out, err;
  EXPECT_EQ(Run({"--trace", Path("missing.swf"), "--policy", "fcfs"}, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("sluice sim: "));
  EXPECT_THAT(err, HasSubstr("missing.swf: cannot open"));

  EXPECT_EQ(Run({"--trace", Path("t.swf"), "--policy", "random"}, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("unknown policy 'random'"));

  EXPECT_EQ(Run({"--trace", Path("t.swf"), "--format", "xml"}, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("unknown trace format 'xml'"));

  std::ofstream(Path("bad.swf")) << "1 2 3\n";
  EXPECT_EQ(Run({"--trace", Path("bad.swf"), "--policy", "fcfs"}, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("bad.swf:1: expected 18 fields, got 3"));

  EXPECT_NE(Run({"--policy", "fcfs"}, &out, &err), 0);  // --trace is required
  EXPECT_THAT(err, HasSubstr("--trace"));
  EXPECT_NE(Run({"--trace", Path("t.swf"), "--nodes", "-3"}, &out, &err), 0);
}

}  // namespace
}  // namespace sluice::sim
