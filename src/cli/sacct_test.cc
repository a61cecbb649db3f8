// sacct against the reference captures (cli/sacct.txt, states/*.txt) and its options;
// sreport's arithmetic and output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "acct/acct_record.h"
#include "cli/cli_test_util.h"
#include "cli/sacct.h"
#include "cli/sacct_format.h"
#include "cli/sreport.h"
#include "cli/sreport_calc.h"

namespace sluice {
namespace {

class SacctTest : public ::testing::Test {
 protected:
  void SetUp() override { t.clock.Set(Ref(3, 0, 0)); }
  AcctJob* Job(int64_t id, const char* name, int state, int cpus, int attempt = 0) {
    AcctJob* j = t.api.acct.add_jobs();
    j->set_job_id(id);
    j->set_attempt(attempt);
    j->set_name(name);
    j->set_partition("gpu");
    j->set_account("root");
    j->set_user("root");
    j->set_state(state);
    j->set_alloc_cpus(cpus);
    j->set_req_cpus(cpus);
    j->set_submit_time(Ref(2, 26, 0));
    j->set_start_time(Ref(2, 26, 2));
    if (state != JOB_RUNNING) j->set_end_time(Ref(2, 26, 3));
    j->set_nnodes(1);
    j->set_time_limit_min(-1);
    return j;
  }
  AcctStep* Step(int64_t id, int step, const char* name, int state, int cpus, int attempt = 0) {
    AcctStep* s = t.api.acct.add_steps();
    s->set_job_id(id);
    s->set_attempt(attempt);
    s->set_step_id(step);
    s->set_name(name);
    s->set_state(state);
    s->set_alloc_cpus(cpus);
    s->set_start_time(Ref(2, 26, 2));
    if (state != JOB_RUNNING) s->set_end_time(Ref(2, 26, 3));
    s->set_max_rss_kb(-1);
    s->set_total_cpu_us(-1);
    return s;
  }
  int Run(std::vector<std::string> args) { return RunSacct(args, t.env); }
  TestCli t;
};

constexpr char kHeader[] =
    "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
    "------------ ---------- ---------- ---------- ---------- ---------- -------- \n";

TEST_F(SacctTest, DefaultColumnsMatchReference) {
  Job(8, "envbatch", JOB_COMPLETED, 4);
  Step(8, acct::kBatchStep, "batch", JOB_COMPLETED, 2);
  Step(8, 0, "bash", JOB_COMPLETED, 4);
  Job(35, "cancelme", JOB_CANCELLED, 1);
  Step(35, acct::kBatchStep, "batch", JOB_CANCELLED, 1)->set_term_signal(15);
  Job(31, "exit3", JOB_FAILED, 1)->set_exit_code(3);
  Step(31, acct::kBatchStep, "batch", JOB_FAILED, 1)->set_exit_code(3);
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(t.out.str(),
            std::string(kHeader) +
                "8              envbatch        gpu       root          4  COMPLETED      0:0 \n"
                "8.batch           batch                  root          2  COMPLETED      0:0 \n"
                "8.0                bash                  root          4  COMPLETED      0:0 \n"
                "35             cancelme        gpu       root          1 CANCELLED+      0:0 \n"
                "35.batch          batch                  root          1  CANCELLED     0:15 \n"
                "31                exit3        gpu       root          1     FAILED      3:0 \n"
                "31.batch          batch                  root          1     FAILED      3:0 \n");
  EXPECT_EQ(t.err.str(), "");
}

TEST_F(SacctTest, ParsableFormatAndDuplicates) {
  Job(4, "requeue", acct::kStateRequeued, 1, 0)->set_end_time(Ref(2, 26, 2));
  Step(4, acct::kBatchStep, "batch", JOB_CANCELLED, 1, 0)->set_term_signal(15);
  Job(4, "requeue", JOB_RUNNING, 1, 1);
  Step(4, acct::kBatchStep, "batch", JOB_RUNNING, 1, 1);
  EXPECT_EQ(Run({"-D", "--parsable2", "-o", "JobID,State,ExitCode,End", "-j", "4"}), 0);
  EXPECT_EQ(t.out.str(),
            "JobID|State|ExitCode|End\n"
            "4|REQUEUED|0:0|2026-11-30T02:26:02\n"
            "4.batch|CANCELLED|0:15|2026-11-30T02:26:03\n"
            "4|RUNNING|0:0|Unknown\n"
            "4.batch|RUNNING|0:0|Unknown\n");
  t.out.str("");
  EXPECT_EQ(Run({"-p", "-n", "-o", "jobid,state", "-j", "4"}), 0);  // latest attempt only
  EXPECT_EQ(t.out.str(), "4|RUNNING|\n4.batch|RUNNING|\n");
  ASSERT_FALSE(t.api.acct_requests.empty());
  EXPECT_EQ(t.api.acct_requests.back().start(), 0);  // -j: from the epoch
}

TEST_F(SacctTest, CancelledByUidAndTimelimitLikeReference) {
  Job(36, "cancelpend", JOB_CANCELLED, 1)->set_start_time(0);
  EXPECT_EQ(Run({"--parsable2", "-o",
                 "JobID,JobName,State,ExitCode,DerivedExitCode,Elapsed,Timelimit", "-j", "36"}),
            0);
  EXPECT_EQ(t.out.str(),
            "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|Timelimit\n"
            "36|cancelpend|CANCELLED by 0|0:0|0:0|00:00:00|UNLIMITED\n");
}

// "CANCELLED by <uid>" names who cancelled the job; rows without a recorded canceller
// (older records) show the owner.
TEST_F(SacctTest, CancelledByIsTheCancellerElseTheOwner) {
  AcctJob* by_root = Job(40, "a", JOB_CANCELLED, 1);
  by_root->set_uid(1000);
  by_root->set_cancelled_by(0);
  AcctJob* by_owner = Job(41, "b", JOB_CANCELLED, 1);
  by_owner->set_uid(1000);
  by_owner->set_cancelled_by(1000);
  AcctJob* by_operator = Job(42, "c", JOB_CANCELLED, 1);
  by_operator->set_uid(1000);
  by_operator->set_cancelled_by(1234);
  Job(43, "d", JOB_CANCELLED, 1)->set_uid(1000);  // no canceller recorded
  EXPECT_EQ(Run({"-a", "-X", "-n", "-P", "-o", "JobID,State", "-j", "40,41,42,43"}), 0);
  EXPECT_EQ(t.out.str(),
            "40|CANCELLED by 0\n41|CANCELLED by 1000\n42|CANCELLED by 1234\n"
            "43|CANCELLED by 1000\n");
  AcctJob job;
  job.set_uid(1000);
  job.set_state(JOB_CANCELLED);
  job.set_cancelled_by(0);
  EXPECT_EQ(SacctValue("State", {&job, nullptr}, 0), "CANCELLED by 0");
  job.clear_cancelled_by();
  EXPECT_EQ(SacctValue("State", {&job, nullptr}, 0), "CANCELLED by 1000");
}

TEST_F(SacctTest, AllocationsStepSelectionAndWidths) {
  Job(8, "envbatch", JOB_COMPLETED, 4);
  Step(8, acct::kBatchStep, "batch", JOB_COMPLETED, 2);
  Step(8, 0, "bash", JOB_COMPLETED, 4)->set_max_rss_kb(2048);
  EXPECT_EQ(Run({"-X", "-P", "-o", "JobID", "-j", "8"}), 0);
  EXPECT_EQ(t.out.str(), "JobID\n8\n");
  t.out.str("");
  EXPECT_EQ(Run({"-P", "-n", "-o", "JobID,MaxRSS", "-j", "8.0"}), 0);
  EXPECT_EQ(t.out.str(), "8.0|2048K\n");
  t.out.str("");
  EXPECT_EQ(Run({"-n", "-X", "-o", "JobID%4,JobName%20", "-j", "8"}), 0);
  EXPECT_EQ(t.out.str(), "8                envbatch \n");
}

// Sampled GPU usage is the step's (the batch step on the batch host's GPUs); the job's
// own line has none, as in Slurm.
TEST_F(SacctTest, TresUsageInAveAndMaxShowTheStepsGpuUsage) {
  Job(9, "train", JOB_COMPLETED, 8);
  AcctStep* b = Step(9, acct::kBatchStep, "batch", JOB_COMPLETED, 8);
  b->set_tres_usage_in_ave("gres/gpumem=1024M,gres/gpuutil=98");
  b->set_tres_usage_in_max("gres/gpumem=2048M,gres/gpuutil=100");
  EXPECT_EQ(Run({"-P", "-o", "JobID,TRESUsageInAve,TRESUsageInMax", "-j", "9"}), 0);
  EXPECT_EQ(t.out.str(),
            "JobID|TRESUsageInAve|TRESUsageInMax\n9||\n"
            "9.batch|gres/gpumem=1024M,gres/gpuutil=98|gres/gpumem=2048M,gres/gpuutil=100\n");
}

// TRES in Slurm 22.05's JSON shape: lists of {type, name, id, count}; a step's sampled
// usage (TRESUsageIn*) is its "requested" max/average.
TEST_F(SacctTest, JsonTresAreListsAndCarryTheStepsGpuUsage) {
  Job(9, "train", JOB_COMPLETED, 8)->set_alloc_tres("billing=8,cpu=8,gres/gpu=8,mem=64000M,node=1");
  AcctStep* b = Step(9, acct::kBatchStep, "batch", JOB_COMPLETED, 8);
  b->set_alloc_tres("cpu=8,gres/gpu:h100=8,mem=64000M,node=1");
  b->set_tres_usage_in_ave("gres/gpumem=1024M,gres/gpuutil=98");
  b->set_tres_usage_in_max("gres/gpumem=2048M,gres/gpuutil=100");
  EXPECT_EQ(Run({"--json", "-j", "9"}), 0);
  auto j = nlohmann::json::parse(t.out.str());
  const auto& job_tres = j["jobs"][0]["tres"]["allocated"];
  ASSERT_EQ(job_tres.size(), 5u);
  EXPECT_EQ(job_tres[2],
            nlohmann::json({{"type", "gres"}, {"name", "gpu"}, {"id", 1001}, {"count", 8}}));
  EXPECT_EQ(job_tres[3]["count"], 64000);
  const auto& step_tres = j["jobs"][0]["steps"][0]["tres"];
  EXPECT_EQ(step_tres["allocated"][1]["name"], "gpu:h100");
  EXPECT_EQ(step_tres["requested"]["max"],
            nlohmann::json::parse(R"([{"type":"gres","name":"gpumem","id":1002,"count":2048},
                                      {"type":"gres","name":"gpuutil","id":1003,"count":100}])"));
  EXPECT_EQ(step_tres["requested"]["average"][1]["count"], 98);
  EXPECT_TRUE(step_tres["consumed"]["max"].empty());
}

TEST_F(SacctTest, FiltersUserAccountState) {
  Job(1, "a", JOB_COMPLETED, 1);
  AcctJob* b = Job(2, "b", JOB_FAILED, 1);
  b->set_uid(1000);
  b->set_user("alice");
  b->set_account("physics");
  EXPECT_EQ(Run({"-X", "-P", "-n", "-o", "JobID", "-s", "f"}), 0);
  EXPECT_EQ(t.out.str(), "2\n");
  t.out.str("");
  EXPECT_EQ(Run({"-X", "-P", "-n", "-o", "JobID", "-A", "root"}), 0);
  EXPECT_EQ(t.out.str(), "1\n");
  t.out.str("");
  EXPECT_EQ(Run({"-X", "-P", "-n", "-o", "JobID", "-u", "alice"}), 0);
  EXPECT_EQ(t.out.str(), "2\n");
  t.out.str("");
  t.env.uid = 1000;  // a normal user sees only their own jobs without -a
  EXPECT_EQ(Run({"-X", "-P", "-n", "-o", "JobID"}), 0);
  EXPECT_EQ(t.out.str(), "2\n");
  t.out.str("");
  EXPECT_EQ(Run({"-X", "-P", "-n", "-o", "JobID", "-a"}), 0);
  EXPECT_EQ(t.out.str(), "1\n2\n");
}

TEST_F(SacctTest, SendsItsFiltersToTheController) {
  EXPECT_EQ(Run({"-u", "alice,1001", "-A", "physics", "-s", "CD,RQ"}), 0);
  ASSERT_EQ(t.api.acct_requests.size(), 1u);
  const AcctJobsRequest& q = t.api.acct_requests[0];
  EXPECT_EQ(std::vector<uint32_t>(q.uids().begin(), q.uids().end()),
            (std::vector<uint32_t>{1000, 1001}));
  EXPECT_EQ(std::vector<std::string>(q.accounts().begin(), q.accounts().end()),
            (std::vector<std::string>{"physics"}));
  EXPECT_EQ(std::vector<int>(q.states().begin(), q.states().end()),
            (std::vector<int>{JOB_COMPLETED, acct::kStateRequeued}));
  EXPECT_EQ(Run({}), 0);  // root, no -u: everyone
  EXPECT_TRUE(t.api.acct_requests[1].uids().empty());
  t.env.uid = 1000;  // a normal user without -a: only their own jobs are asked for
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(std::vector<uint32_t>(t.api.acct_requests[2].uids().begin(),
                                  t.api.acct_requests[2].uids().end()),
            (std::vector<uint32_t>{1000}));
  EXPECT_EQ(Run({"-a"}), 0);
  EXPECT_TRUE(t.api.acct_requests[3].uids().empty());
}

TEST_F(SacctTest, DefaultWindowIsToday) {
  EXPECT_EQ(Run({}), 0);
  ASSERT_EQ(t.api.acct_requests.size(), 1u);
  EXPECT_EQ(t.api.acct_requests[0].start(), kRefDay);
  EXPECT_EQ(Run({"-S", "2026-11-29T10:00", "-E", "now"}), 0);
  EXPECT_EQ(t.api.acct_requests[1].start(), kRefDay - 14 * 3600);
  EXPECT_EQ(t.api.acct_requests[1].end(), Ref(3, 0, 0));
}

TEST_F(SacctTest, JsonListsAPickedStepUnderItsOwnJob) {
  Job(8, "first", JOB_COMPLETED, 4);
  Step(8, acct::kBatchStep, "batch", JOB_COMPLETED, 2);
  Job(9, "second", JOB_COMPLETED, 4);
  Step(9, acct::kBatchStep, "batch", JOB_COMPLETED, 2);
  Step(9, 0, "bash", JOB_COMPLETED, 4)->set_end_time(Ref(2, 27, 0));  // outlasts the job record
  EXPECT_EQ(Run({"--json", "-j", "8,9.0"}), 0) << t.err.str();
  auto j = nlohmann::json::parse(t.out.str());
  ASSERT_EQ(j["jobs"].size(), 2u) << j.dump(1);
  EXPECT_EQ(j["jobs"][0]["job_id"], 8);
  ASSERT_EQ(j["jobs"][0]["steps"].size(), 1u);
  EXPECT_EQ(j["jobs"][0]["steps"][0]["step"]["id"], "batch");
  EXPECT_EQ(j["jobs"][1]["job_id"], 9);
  ASSERT_EQ(j["jobs"][1]["steps"].size(), 1u);
  EXPECT_EQ(j["jobs"][1]["steps"][0]["step"]["id"], "0");
  // Job 9's record is the job's own, as `-j 9` prints it, not its step's.
  const std::string picked_step = t.out.str();
  t.out.str("");
  EXPECT_EQ(Run({"--json", "-j", "9"}), 0);
  nlohmann::json whole = nlohmann::json::parse(t.out.str())["jobs"][0];
  whole.erase("steps");
  nlohmann::json listed = j["jobs"][1];
  listed.erase("steps");
  EXPECT_EQ(listed, whole);
  t.out.str(picked_step);
  // Printed as one tree would print it.
  EXPECT_EQ(t.out.str(), j.dump(2) + "\n");
}

TEST_F(SacctTest, JsonParses) {
  Job(8, "envbatch", JOB_COMPLETED, 4);
  Step(8, acct::kBatchStep, "batch", JOB_COMPLETED, 2);
  EXPECT_EQ(Run({"--json", "-j", "8"}), 0);
  auto j = nlohmann::json::parse(t.out.str());
  ASSERT_EQ(j["jobs"].size(), 1u);
  EXPECT_EQ(j["jobs"][0]["job_id"], 8);
  EXPECT_EQ(j["jobs"][0]["name"], "envbatch");
  EXPECT_EQ(j["jobs"][0]["state"]["current"], "COMPLETED");
  EXPECT_EQ(j["jobs"][0]["exit_code"]["return_code"], 0);
  EXPECT_EQ(j["jobs"][0]["steps"][0]["step"]["id"], "batch");
  // Every key of a job in Slurm 22.05's output (shared/reference/cli/sacct_json.txt).
  for (const char* key : {"account",
                          "allocation_nodes",
                          "array",
                          "association",
                          "cluster",
                          "comment",
                          "constraints",
                          "container",
                          "derived_exit_code",
                          "exit_code",
                          "flags",
                          "group",
                          "het",
                          "job_id",
                          "kill_request_user",
                          "mcs",
                          "name",
                          "nodes",
                          "partition",
                          "priority",
                          "qos",
                          "required",
                          "reservation",
                          "state",
                          "steps",
                          "time",
                          "tres",
                          "user",
                          "wckey",
                          "working_directory"}) {
    EXPECT_TRUE(j["jobs"][0].contains(key)) << key;
  }
}

TEST_F(SacctTest, BadInputIsAnError) {
  EXPECT_EQ(Run({"-o", "JobID,Bogus"}), 1);
  EXPECT_EQ(t.err.str(), "sacct: error: Invalid field requested: \"Bogus\"\n");
  t.err.str("");
  EXPECT_EQ(Run({"-s", "nope"}), 1);
  EXPECT_EQ(t.err.str(), "sacct: error: Invalid state: NOPE\n");
  t.err.str("");
  EXPECT_EQ(Run({"-S", "yesterdayish"}), 1);
  EXPECT_NE(t.err.str().find("Invalid time specification"), std::string::npos);
  t.err.str("");
  EXPECT_EQ(Run({"-j", "abc"}), 1);
  t.err.str("");
  EXPECT_EQ(Run({"--bogus"}), 1);
  // Numbers too long for 64 bits (fuzz_acct_query: std::stoll threw and sreport aborted):
  // refused, as are offsets that would overflow once multiplied.
  const int64_t now = 1'800'000'000;
  for (const char* bad : {"2022333333333333333333333333", "999999999999",
                          "now-99999999999999999999d", "now+1234567890weeks"}) {
    auto r = ParseSacctTime(bad, now);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), std::string("Invalid time specification (pos=0): ") + bad);
  }
  EXPECT_EQ(*ParseSacctTime("99999999999", now), 99999999999);
  EXPECT_EQ(*ParseSacctTime("now-999999999w", now), now - 999999999LL * 7 * 86400);
  EXPECT_NE(t.err.str().find("unrecognized option '--bogus'"), std::string::npos);
  t.err.str("");
  t.api.fail = FailedPrecondition("Slurm accounting storage is disabled");
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(), "sacct: error: Slurm accounting storage is disabled\n");
}

TEST(SreportCalc, UtilizationAndTopUsers) {
  std::vector<AcctJob> jobs(3);
  jobs[0].set_user("alice");
  jobs[0].set_account("a");
  jobs[0].set_alloc_cpus(4);
  jobs[0].set_alloc_gpus(2);
  jobs[0].set_start_time(100);
  jobs[0].set_end_time(400);  // 300 s, all inside
  jobs[1].set_user("bob");
  jobs[1].set_account("b");
  jobs[1].set_alloc_cpus(1);
  jobs[1].set_start_time(50);  // 50 s before the window: only 100 s count
  jobs[1].set_end_time(200);
  jobs[2].set_user("carol");  // never started
  Utilization u = ClusterUtilization(jobs, 16, "cpu", 100, 1100, 2000);
  EXPECT_EQ(u.allocated, 4 * 300 + 100);
  EXPECT_EQ(u.reported, 16 * 1000);
  EXPECT_EQ(u.idle, u.reported - u.allocated);
  Utilization g = ClusterUtilization(jobs, 8, "gres/gpu", 100, 1100, 2000);
  EXPECT_EQ(g.allocated, 600);
  auto top = TopUsers(jobs, "cpu", 100, 1100, 2000, 10);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].user, "alice");
  EXPECT_EQ(top[0].used, 1200);
  EXPECT_EQ(top[1].user, "bob");
  // A running attempt counts until now.
  jobs[0].set_end_time(0);
  EXPECT_EQ(ClusterUtilization(jobs, 16, "cpu", 100, 1100, 600).allocated, 4 * 500 + 100);
}

TEST_F(SacctTest, SreportRefusesATimeTooLongForSixtyFourBits) {
  EXPECT_EQ(RunSreport({"cluster", "utilization", "start=2022333333333333333333333333"}, t.env), 1);
  EXPECT_NE(t.err.str().find("Invalid time specification"), std::string::npos) << t.err.str();
}

TEST_F(SacctTest, SreportGpuHoursParsable) {
  AcctJob* j = Job(5, "train", JOB_COMPLETED, 4);
  j->set_alloc_gpus(2);
  j->set_start_time(kRefDay - 86400 + 3600);
  j->set_end_time(kRefDay - 86400 + 3 * 3600);  // 2 h x 2 GPUs = 4 GPU-hours
  NodeInfo* n = t.api.nodes.add_nodes();
  n->set_cpus(16);
  for (int i = 0; i < 8; ++i) n->add_gpus()->set_index(i);
  t.api.config.add_keys("ClusterName");
  t.api.config.add_values("anchor");
  EXPECT_EQ(
      RunSreport({"-P", "-n", "-t", "hours", "--tres=gres/gpu", "cluster", "utilization"}, t.env),
      0);
  EXPECT_EQ(t.out.str(), "anchor|gres/gpu|4|0|0|188|0|192\n");
  t.out.str("");
  EXPECT_EQ(RunSreport({"-P", "-n", "-t", "hours", "--tres=gres/gpu", "user", "top"}, t.env), 0);
  EXPECT_EQ(t.out.str(), "anchor|gres/gpu|root|root|root|4|0\n");
  t.out.str("");
  EXPECT_EQ(RunSreport({"cluster", "utilization"}, t.env), 0);
  EXPECT_NE(t.out.str().find("Cluster Utilization 2026-11-29T00:00:00 - 2026-11-29T23:59:59"),
            std::string::npos);
  EXPECT_NE(t.out.str().find("Usage reported in CPU Minutes"), std::string::npos);
  EXPECT_EQ(RunSreport({"cluster", "bogus"}, t.env), 1);
  EXPECT_EQ(RunSreport({"-t", "fortnights", "cluster", "utilization"}, t.env), 1);
}

// -T gres/gpuutil: the GPU-hours a user's jobs kept busy, as a share of those they held.
TEST_F(SacctTest, SreportGpuUtilizationBesideGpusHeld) {
  AcctJob* j = Job(5, "train", JOB_COMPLETED, 4);
  j->set_alloc_gpus(8);
  j->set_start_time(kRefDay - 86400 + 3600);
  j->set_end_time(kRefDay - 86400 + 3 * 3600);  // 2 h x 8 GPUs = 16 GPU-hours held
  AcctStep* b = Step(5, acct::kBatchStep, "batch", JOB_COMPLETED, 4);
  b->set_tres_usage_in_ave("gres/gpumem=1024M,gres/gpuutil=100");  // one GPU busy: 2 h
  t.api.config.add_keys("ClusterName");
  t.api.config.add_values("anchor");
  EXPECT_EQ(RunSreport({"-P", "-n", "-t", "hours", "-T", "gres/gpuutil", "user", "top"}, t.env), 0);
  EXPECT_EQ(t.out.str(), "anchor|gres/gpuutil|root|root|root|2|0\n");
  t.out.str("");
  EXPECT_EQ(RunSreport({"-P", "-n", "-t", "percent", "-T", "gres/gpuutil", "user", "top"}, t.env),
            0);
  EXPECT_EQ(t.out.str(), "anchor|gres/gpuutil|root|root|root|12.50%|0\n");
  EXPECT_EQ(RunSreport({"-T", "gres/gpuutil", "cluster", "utilization"}, t.env), 1);
}

TEST_F(SacctTest, SreportDownFromNodeEvents) {
  NodeInfo* n = t.api.nodes.add_nodes();
  n->set_cpus(16);
  NodeEventRecord* e = t.api.acct.add_node_events();  // 2 h of yesterday, 16 CPUs
  e->set_node("node01");
  e->set_state("DOWN");
  e->set_start_time(kRefDay - 3 * 3600);
  e->set_end_time(kRefDay + 3600);  // ends after the window: 3 h count
  e->set_cpus(16);
  EXPECT_EQ(RunSreport({"-P", "-n", "-t", "hours", "cluster", "utilization"}, t.env), 0);
  // Cluster|Allocated|Down|PLND Down|Idle|Reserved|Reported
  EXPECT_EQ(t.out.str(), "sluice|0|48|0|336|0|384\n");
  ASSERT_FALSE(t.api.acct_requests.empty());
  EXPECT_TRUE(t.api.acct_requests.back().node_events());
}

TEST_F(SacctTest, GetoptOrderAndAbbreviations) {
  Job(5, "train", JOB_COMPLETED, 2);
  EXPECT_EQ(Run({"-X", "-n", "-P", "-o", "JobID,State", "-j", "5"}), 0);
  const std::string want = t.out.str();
  t.out.str("");
  EXPECT_EQ(Run({"--jobs", "5", "--allocations", "--noh", "--parsable2", "--form=JobID,State"}), 0);
  EXPECT_EQ(t.out.str(), want);
  EXPECT_EQ(Run({"--pars"}), 1);
  EXPECT_EQ(t.err.str(),
            "sacct: option '--pars' is ambiguous; possibilities: '--parsable' '--parsable2'\n"
            "Try \"sacct --help\" for more information\n");
}

}  // namespace
}  // namespace sluice
