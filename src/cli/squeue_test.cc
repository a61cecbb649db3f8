#include "cli/squeue.h"

#include <gtest/gtest.h>

#include "cli/ref_cluster_test_util.h"

namespace sluice {
namespace {

class SqueueTest : public ::testing::Test {
 protected:
  void SetUp() override { SetRefCluster(&t.api); }
  int Run(std::vector<std::string> args) { return RunSqueue(args, t.env); }
  TestCli t;
};

constexpr char kDefault[] =
    "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
    "                 4       gpu  requeue     root PD       0:00      1 (BeginTime)\n"
    "                16       gpu  depwait     root PD       0:00      1 (Dependency)\n"
    "                14       gpu   bigjob     root PD       0:00      4 (Resources)\n"
    "                15       gpu     held     root PD       0:00      1 (JobHeldUser)\n"
    "                11       gpu    plain     root  R       0:02      1 node01\n"
    "                12       gpu parsable     root  R       0:02      1 node01\n"
    "                13       gpu   gpujob     root  R       0:02      2 node[01-02]\n"
    "                 1       gpu  timeout     root  R       0:14      1 node01\n"
    "                 2       gpu     sigB     root  R       0:14      1 node01\n"
    "                 3       gpu  sigStep     root  R       0:14      1 node01\n";

TEST_F(SqueueTest, DefaultFormatMatchesSlurm) {
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(t.out.str(), kDefault);
  EXPECT_EQ(t.err.str(), "");
}

TEST_F(SqueueTest, ExplicitDefaultFormatIsIdentical) {
  EXPECT_EQ(Run({"-o", "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"}), 0);
  EXPECT_EQ(t.out.str(), kDefault);
}

TEST_F(SqueueTest, SortsPendingFirstThenPriority) {
  // Controller order scrambled: running first, held (priority 0) early.
  GetJobsReply shuffled;
  shuffled.set_now(t.api.jobs.now());
  for (int i : {9, 3, 0, 5}) *shuffled.add_jobs() = t.api.jobs.jobs(i);
  t.api.jobs = shuffled;
  EXPECT_EQ(Run({"-h", "-o", "%i %t %Q"}), 0);
  EXPECT_EQ(t.out.str(), "4 PD 1\n15 PD 0\n3 R 1\n12 R 1\n");  // ties keep controller order
}

TEST_F(SqueueTest, LongFormatWithDateLine) {
  EXPECT_EQ(Run({"-l"}), 0);
  EXPECT_EQ(
      t.out.str(),
      "Mon Nov 30 02:26:16 2026\n"
      "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES "
      "NODELIST(REASON)\n"
      "                 4       gpu  requeue     root  PENDING       0:00 UNLIMITED      1 "
      "(BeginTime)\n"
      "                16       gpu  depwait     root  PENDING       0:00 UNLIMITED      1 "
      "(Dependency)\n"
      "                14       gpu   bigjob     root  PENDING       0:00 UNLIMITED      4 "
      "(Resources)\n"
      "                15       gpu     held     root  PENDING       0:00 UNLIMITED      1 "
      "(JobHeldUser)\n"
      "                11       gpu    plain     root  RUNNING       0:02 UNLIMITED      1 node01\n"
      "                12       gpu parsable     root  RUNNING       0:02 UNLIMITED      1 node01\n"
      "                13       gpu   gpujob     root  RUNNING       0:02 UNLIMITED      2 "
      "node[01-02]\n"
      "                 1       gpu  timeout     root  RUNNING       0:14      1:00      1 node01\n"
      "                 2       gpu     sigB     root  RUNNING       0:14      1:00      1 node01\n"
      "                 3       gpu  sigStep     root  RUNNING       0:14      1:00      1 "
      "node01\n");
}

TEST_F(SqueueTest, CustomFormats) {
  EXPECT_EQ(Run({"-o", "%i %T %j"}), 0);
  EXPECT_EQ(t.out.str(),
            "JOBID STATE NAME\n4 PENDING requeue\n16 PENDING depwait\n14 PENDING bigjob\n"
            "15 PENDING held\n11 RUNNING plain\n12 RUNNING parsable\n13 RUNNING gpujob\n"
            "1 RUNNING timeout\n2 RUNNING sigB\n3 RUNNING sigStep\n");
}

TEST_F(SqueueTest, ManyFieldsMatchSlurm) {
  EXPECT_EQ(Run({"-h", "-o", "%A|%i|%j|%u|%t|%T|%r|%D|%C|%b|%N|%l|%L|%M|%P|%Q|%S|%V|%e"}), 0);
  EXPECT_EQ(
      t.out.str(),
      "4|4|requeue|root|PD|PENDING|BeginTime|1|1|N/"
      "A||UNLIMITED|UNLIMITED|0:00|gpu|1|2026-11-30T02:28:03|2026-11-30T02:26:02|NONE\n"
      "16|16|depwait|root|PD|PENDING|Dependency|1|1|N/A||UNLIMITED|UNLIMITED|0:00|gpu|1|N/"
      "A|2026-11-30T02:26:13|N/A\n"
      "14|14|bigjob|root|PD|PENDING|Resources|4|4|gres:gpu:8||UNLIMITED|UNLIMITED|0:00|gpu|1|N/"
      "A|2026-11-30T02:26:13|N/A\n"
      "15|15|held|root|PD|PENDING|JobHeldUser|1|1|N/A||UNLIMITED|UNLIMITED|0:00|gpu|0|N/"
      "A|2026-11-30T02:26:13|N/A\n"
      "11|11|plain|root|R|RUNNING|None|1|1|N/"
      "A|node01|UNLIMITED|UNLIMITED|0:02|gpu|1|2026-11-30T02:26:14|2026-11-30T02:26:13|NONE\n"
      "12|12|parsable|root|R|RUNNING|None|1|1|N/"
      "A|node01|UNLIMITED|UNLIMITED|0:02|gpu|1|2026-11-30T02:26:14|2026-11-30T02:26:13|NONE\n"
      "13|13|gpujob|root|R|RUNNING|None|2|2|gres:gpu:4|node[01-02]|UNLIMITED|UNLIMITED|0:02|gpu|1|"
      "2026-11-30T02:26:14|2026-11-30T02:26:13|NONE\n"
      "1|1|timeout|root|R|RUNNING|None|1|1|N/"
      "A|node01|1:00|0:46|0:14|gpu|1|2026-11-30T02:26:02|2026-11-30T02:26:00|2026-11-30T02:27:02\n"
      "2|2|sigB|root|R|RUNNING|None|1|1|N/"
      "A|node01|1:00|0:46|0:14|gpu|1|2026-11-30T02:26:02|2026-11-30T02:26:00|2026-11-30T02:27:02\n"
      "3|3|sigStep|root|R|RUNNING|None|1|1|N/"
      "A|node01|1:00|0:46|0:14|gpu|1|2026-11-30T02:26:02|2026-11-30T02:26:00|2026-11-30T02:27:"
      "02\n");
}

TEST_F(SqueueTest, LongFormatOption) {
  EXPECT_EQ(Run({"-O", "JobID,Name,State,Reason,NumNodes,NumCPUs,tres-per-node,TimeLimit,NodeList",
                 "-t", "PD"}),
            0);
  EXPECT_EQ(
      t.out.str(),
      "JOBID               NAME                STATE               REASON              NODES       "
      "        CPUS                TRES_PER_NODE       TIME_LIMIT          NODELIST            \n"
      "4                   requeue             PENDING             BeginTime           1           "
      "        1                   N/A                 UNLIMITED                               \n"
      "16                  depwait             PENDING             Dependency          1           "
      "        1                   N/A                 UNLIMITED                               \n"
      "14                  bigjob              PENDING             Resources           4           "
      "        4                   gres:gpu:8          UNLIMITED                               \n"
      "15                  held                PENDING             JobHeldUser         1           "
      "        1                   N/A                 UNLIMITED                               \n");
}

TEST_F(SqueueTest, FormatWithWidthsAndTresAlloc) {
  EXPECT_EQ(Run({"--Format=jobid:10,state:12,tres-alloc:60", "-j", "14,13"}), 0);
  EXPECT_EQ(t.out.str(),
            "JOBID     STATE       TRES_ALLOC                                                  \n"
            "14        PENDING     cpu=4,mem=4000M,node=4,billing=4,gres/gpu=32                \n"
            "13        RUNNING     cpu=2,mem=2000M,node=2,billing=2,gres/gpu=8                 \n");
}

TEST_F(SqueueTest, StateFilterShortForms) {
  EXPECT_EQ(Run({"-t", "PD", "-h", "-o", "%i %r"}), 0);
  EXPECT_EQ(t.out.str(), "4 BeginTime\n16 Dependency\n14 Resources\n15 JobHeldUser\n");
}

TEST_F(SqueueTest, StateAbbreviatedLongOption) {
  EXPECT_EQ(Run({"--state=r", "-h", "-o", "%i"}), 0);
  EXPECT_EQ(t.out.str(), "11\n12\n13\n1\n2\n3\n");
}

TEST_F(SqueueTest, JobListKeepsSortOrder) {
  EXPECT_EQ(Run({"-j", "11,15"}), 0);
  EXPECT_EQ(t.out.str(),
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
            "                15       gpu     held     root PD       0:00      1 (JobHeldUser)\n"
            "                11       gpu    plain     root  R       0:02      1 node01\n");
  ASSERT_EQ(t.api.job_queries.size(), 1u);
  EXPECT_EQ(t.api.job_queries[0].job_ids_size(), 2);
}

TEST_F(SqueueTest, JobOptionTakesNextWord) {
  EXPECT_EQ(Run({"-h", "-j", "15", "-o", "%i"}), 0);
  EXPECT_EQ(t.out.str(), "15\n");
}

TEST_F(SqueueTest, NameUserPartitionFilters) {
  EXPECT_EQ(Run({"-n", "held", "-h", "-o", "%i"}), 0);
  EXPECT_EQ(t.out.str(), "15\n");
  t.out.str("");
  EXPECT_EQ(Run({"-u", "root", "-h", "-p", "gpu", "-o", "%i"}), 0);
  std::string all = t.out.str();
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 10);
  t.out.str("");
  EXPECT_EQ(Run({"-u", "alice", "-h"}), 0);
  EXPECT_EQ(t.out.str(), "");
  EXPECT_EQ(Run({"--me", "-h", "-o", "%i", "-t", "R", "-w", "node02"}), 0);
  EXPECT_EQ(t.out.str(), "13\n");
}

TEST_F(SqueueTest, SendsItsFiltersToTheController) {
  EXPECT_EQ(Run({"-u", "root", "-A", "acct", "-p", "gpu,cpu", "-n", "x", "-q", "high", "-w",
                 "node[01-02]", "-t", "R,PD", "-h"}),
            0);
  ASSERT_EQ(t.api.job_queries.size(), 1u);
  const GetJobsRequest& q = t.api.job_queries[0];
  EXPECT_EQ(q.job_ids_size(), 0);
  EXPECT_EQ(std::vector<std::string>(q.users().begin(), q.users().end()),
            std::vector<std::string>{"0"});
  EXPECT_EQ(std::vector<std::string>(q.accounts().begin(), q.accounts().end()),
            std::vector<std::string>{"acct"});
  EXPECT_EQ(std::vector<std::string>(q.partitions().begin(), q.partitions().end()),
            (std::vector<std::string>{"cpu", "gpu"}));
  EXPECT_EQ(std::vector<std::string>(q.names().begin(), q.names().end()),
            std::vector<std::string>{"x"});
  EXPECT_EQ(std::vector<std::string>(q.qos().begin(), q.qos().end()),
            std::vector<std::string>{"high"});
  EXPECT_EQ(std::vector<std::string>(q.nodes().begin(), q.nodes().end()),
            (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(std::vector<int>(q.states().begin(), q.states().end()),
            (std::vector<int>{JOB_PENDING, JOB_RUNNING}));
  EXPECT_FALSE(q.with_script_env());
  EXPECT_TRUE(q.compress_pending_tasks());  // the controller compresses pending tasks
  // -r and --json show every task: the controller must send them all.
  EXPECT_EQ(Run({"-r", "-h"}), 0);
  EXPECT_FALSE(t.api.job_queries.back().compress_pending_tasks());
  EXPECT_EQ(Run({"--json"}), 0);
  EXPECT_FALSE(t.api.job_queries.back().compress_pending_tasks());
}

TEST_F(SqueueTest, SendsTheDefaultStatesStartAndMe) {
  auto states = [&] {
    const GetJobsRequest& q = t.api.job_queries.back();
    return std::vector<int>(q.states().begin(), q.states().end());
  };
  EXPECT_EQ(Run({"-h"}), 0);
  EXPECT_EQ(states(), (std::vector<int>{JOB_PENDING, JOB_RUNNING, JOB_COMPLETING}));
  EXPECT_EQ(t.api.job_queries.back().users_size(), 0);
  EXPECT_EQ(Run({"-h", "--start"}), 0);
  EXPECT_EQ(states(), std::vector<int>{JOB_PENDING});
  EXPECT_EQ(Run({"-h", "-t", "SUSPENDED"}), 0);  // a state Sluice has not: none
  EXPECT_EQ(states(), std::vector<int>{JOB_STATE_UNSPECIFIED});
  EXPECT_EQ(Run({"-h", "--me", "-u", "1000"}), 0);  // --me ANDed with -u: the caller's uid
  EXPECT_EQ(std::vector<std::string>(t.api.job_queries.back().users().begin(),
                                     t.api.job_queries.back().users().end()),
            std::vector<std::string>{"0"});
  // With -j the ids alone: a job named but filtered out is not an invalid id.
  t.out.str("");
  EXPECT_EQ(Run({"-h", "-j", "11", "-t", "PD", "-n", "x"}), 0);
  EXPECT_EQ(t.out.str(), "");
  const GetJobsRequest& q = t.api.job_queries.back();
  EXPECT_EQ(q.job_ids_size(), 1);
  EXPECT_EQ(q.states_size() + q.names_size(), 0);
}

TEST_F(SqueueTest, StartShowsPendingByStartTime) {
  EXPECT_EQ(Run({"--start"}), 0);
  EXPECT_EQ(t.out.str(),
            "             JOBID PARTITION     NAME     USER ST          START_TIME  NODES "
            "SCHEDNODES           NODELIST(REASON)\n"
            "                 4       gpu  requeue     root PD 2026-11-30T02:28:03      1 (null)   "
            "            (BeginTime)\n"
            "                14       gpu   bigjob     root PD                 N/A      4 (null)   "
            "            (Resources)\n"
            "                15       gpu     held     root PD                 N/A      1 (null)   "
            "            (JobHeldUser)\n"
            "                16       gpu  depwait     root PD                 N/A      1 (null)   "
            "            (Dependency)\n");
}

TEST_F(SqueueTest, CompletedJobsHiddenUnlessAsked) {
  JobInfo done = RefJob(33, "ok", JOB_COMPLETED, "None", 1, Ref(2, 26, 27));
  StartJob(&done, Ref(2, 26, 29), {"node01"});
  done.set_end_time(Ref(2, 26, 29));
  JobInfo failed = RefJob(31, "exit3", JOB_FAILED, "NonZeroExitCode", 1, Ref(2, 26, 23));
  StartJob(&failed, Ref(2, 26, 23), {"node01"});
  failed.set_end_time(Ref(2, 26, 23));
  failed.set_exit_code(3);
  JobInfo cancelled = RefJob(36, "cancelpending", JOB_CANCELLED, "None", 1, Ref(2, 26, 23));
  t.api.jobs.clear_jobs();
  for (JobInfo* j : {&done, &failed, &cancelled}) *t.api.jobs.add_jobs() = *j;
  EXPECT_EQ(Run({"-j", "33"}), 0);
  EXPECT_EQ(
      t.out.str(),
      "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n");
  t.out.str("");
  EXPECT_EQ(Run({"-t", "all"}), 0);
  EXPECT_EQ(
      t.out.str(),
      "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
      "                33       gpu       ok     root CD       0:00      1 node01\n"
      "                31       gpu    exit3     root  F       0:00      1 (NonZeroExitCode)\n"
      "                36       gpu cancelpe     root CA       0:00      1 \n");
}

TEST_F(SqueueTest, UnknownSingleJobIdIsAnError) {
  EXPECT_EQ(Run({"-j", "999999"}), 1);
  EXPECT_EQ(t.out.str(), "");
  EXPECT_EQ(t.err.str(), "slurm_load_jobs error: Invalid job id specified\n");
}

TEST_F(SqueueTest, ControllerErrorsArePrinted) {
  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(),
            "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n");
}

TEST_F(SqueueTest, BadStateListsValidStates) {
  EXPECT_EQ(Run({"-t", "BOGUS"}), 1);
  EXPECT_EQ(t.err.str(),
            "squeue: error: Invalid job state specified: BOGUS\n"
            "squeue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,"
            "CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,"
            "COMPLETING,CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,"
            "REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED\n\n");
}

TEST_F(SqueueTest, BadOptionsAndFields) {
  EXPECT_EQ(Run({"--bogus"}), 1);
  EXPECT_EQ(t.err.str(),
            "squeue: unrecognized option '--bogus'\nTry \"squeue --help\" for more information\n");
  t.err.str("");
  EXPECT_EQ(Run({"-o", "%i %!"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: error: Invalid job format specification: !\n");
  t.err.str("");
  EXPECT_EQ(Run({"-O", "JobID,nosuchfield"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: error: Invalid job format specification: nosuchfield\n");
  t.err.str("");
  EXPECT_EQ(Run({"-j", "abc"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: error: Invalid job id: abc\n");
  t.err.str("");
  EXPECT_EQ(Run({"-u", "nosuchuser"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: error: Invalid user: nosuchuser\n");
  EXPECT_EQ(t.connects, 0);
}

TEST_F(SqueueTest, VersionNeedsNoController) {
  EXPECT_EQ(Run({"--version"}), 0);
  EXPECT_EQ(t.out.str(), "slurm 22.05.8\n");
  EXPECT_EQ(t.connects, 0);
}

// GNU getopt_long: any order, "--opt value" and "--opt=value", unambiguous abbreviations,
// "--" ends options (squeue takes no positionals, so what follows is refused).
TEST_F(SqueueTest, GetoptOrderAbbreviationsAndDoubleDash) {
  EXPECT_EQ(Run({"--form", "%i", "--jobs", "15", "--noh"}), 0);
  EXPECT_EQ(Run({"--jobs=15", "-o%i", "-h"}), 0);
  EXPECT_EQ(t.out.str(), "15\n15\n");
  const std::string tail = "Try \"squeue --help\" for more information\n";
  EXPECT_EQ(Run({"-h", "--", "-o%i"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: error: Unrecognized option: -o%i\n" + tail);
  t.err.str("");
  EXPECT_EQ(Run({"--no"}), 1);
  EXPECT_EQ(t.err.str(),
            "squeue: option '--no' is ambiguous; possibilities: '--noheader' '--nodelist' "
            "'--noconvert'\n" +
                tail);
  t.err.str("");
  EXPECT_EQ(Run({"-j", "15", "--bogus=1"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: unrecognized option '--bogus=1'\n" + tail);
}

}  // namespace
}  // namespace sluice
