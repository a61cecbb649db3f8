// sprio and sshare against the reference outputs (cli/sprio.txt, cli/sshare.txt) and
// their options.
#include <gtest/gtest.h>

#include <limits>

#include "cli/cli_test_util.h"
#include "cli/sprio.h"
#include "cli/sshare.h"

namespace sluice {
namespace {

class SprioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    t.api.priorities.set_multifactor(true);  // the reference: multifactor, weights 0
    Add(14, "gpu", "root", 0, 1);
  }
  JobPriority* Add(int64_t id, const char* part, const char* user, uint32_t uid, int64_t prio) {
    JobPriority* j = t.api.priorities.add_jobs();
    j->set_job_id(id);
    j->set_partition(part);
    j->set_user(user);
    j->set_uid(uid);
    j->set_priority(prio);
    return j;
  }
  int Run(std::vector<std::string> args) { return RunSprio(args, t.env); }
  TestCli t;
};

TEST_F(SprioTest, DefaultMatchesReference) {
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(t.out.str(),
            "          JOBID PARTITION   PRIORITY       SITE\n"
            "             14 gpu                1          0\n");
  EXPECT_EQ(t.err.str(), "");
}

TEST_F(SprioTest, LongMatchesReference) {
  EXPECT_EQ(Run({"-l"}), 0);
  EXPECT_EQ(t.out.str(),
            "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  "
            "FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES\n"
            "             14 gpu           root          1          0          0          0  "
            "        0          0          0          0           0                     \n");
}

TEST_F(SprioTest, WeightedColumnsAppearForNonZeroWeights) {
  t.api.priorities.set_weight_age(1000);
  t.api.priorities.set_weight_fairshare(10000);
  JobPriority* j = Add(15, "gpu", "alice", 1000, 5501);
  j->set_age(500);
  j->set_fairshare(5000);
  j->set_fairshare_factor(0.5);
  EXPECT_EQ(Run({"-h"}), 0);
  EXPECT_EQ(t.out.str(),
            "             14 gpu                1          0          0          0\n"
            "             15 gpu             5501          0        500       5000\n");
  t.out.str("");
  EXPECT_EQ(Run({"-n", "-j", "15"}), 0);
  EXPECT_EQ(t.out.str(),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE\n"
            "             15 gpu        0.0000013          0  0.0000000  0.5000000\n");
  ASSERT_EQ(t.api.priority_queries.back().job_ids_size(), 1);
  EXPECT_EQ(t.api.priority_queries.back().job_ids(0), 15);
}

TEST_F(SprioTest, UserFilterAddsUserColumn) {
  Add(15, "gpu", "alice", 1000, 7);
  EXPECT_EQ(Run({"-u", "alice"}), 0);
  EXPECT_EQ(t.out.str(),
            "          JOBID PARTITION     USER   PRIORITY       SITE\n"
            "             15 gpu          alice          7          0\n");
  t.out.str("");
  EXPECT_EQ(Run({"-u", "bob"}), 0);
  EXPECT_EQ(t.out.str(), "Unable to find jobs matching user/id(s) specified\n");
}

TEST_F(SprioTest, FormatOptionAndWeightsRow) {
  t.api.priorities.set_weight_age(1000);
  EXPECT_EQ(Run({"-w", "-o", "%.5i|%N|%A"}), 0);
  EXPECT_EQ(t.out.str(), "JOBID|NICE|AGE\nWeigh||1000\n   14|0|0\n");
}

// The layout Slurm's testsuite checks: the weights row names SITE's weight (1), and -v
// first lists the options as understood.
TEST_F(SprioTest, WeightsRowAndVerboseReport) {
  EXPECT_EQ(Run({"--weights"}), 0);
  EXPECT_NE(t.out.str().find("        Weights                               1\n"),
            std::string::npos)
      << t.out.str();
  t.out.str("");
  EXPECT_EQ(Run({"--verbose", "-j", "14"}), 0);
  EXPECT_EQ(t.out.str().rfind(
                "-----------------------------\nformat     = (null)\njob_flag   = 1\n"
                "jobs       = 14\npartition  = (null)\nusers      = (null)\nverbose    = 1\n",
                0),
            0u)
      << t.out.str();
  EXPECT_NE(t.out.str().find("             14 gpu"), std::string::npos) << t.out.str();
}

TEST_F(SprioTest, BasicPluginAndErrors) {
  t.api.priorities.set_multifactor(false);
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(),
            "You are not running a supported priority plugin\n(priority/basic).\n"
            "Only 'priority/multifactor' is supported.\n");
  t.err.str("");
  EXPECT_EQ(Run({"-j", "abc"}), 1);
  EXPECT_NE(t.err.str().find("Invalid job id"), std::string::npos) << t.err.str();
  t.err.str("");
  EXPECT_EQ(Run({"--bogus"}), 1);
  EXPECT_NE(t.err.str().find("unrecognized option '--bogus'"), std::string::npos);
  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  t.err.str("");
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(t.err.str().find("connect failure"), std::string::npos);
}

class SshareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Row("root", "", 0, 0, 0, 0, 1.0, -1, 0);
    Row("root", "root", 1, 1, 1.0, 0, 0.0, 1.0, std::numeric_limits<double>::infinity());
  }
  void Row(const char* acct, const char* user, int depth, int64_t raw, double norm, double usage,
           double eff, double fs, double level) {
    ShareInfo* r = t.api.shares.add_rows();
    r->set_account(acct);
    r->set_user(user);
    r->set_depth(depth);
    r->set_raw_shares(raw);
    r->set_norm_shares(norm);
    r->set_raw_usage(usage);
    r->set_effective_usage(eff);
    r->set_fairshare(fs);
    r->set_level_fs(level);
  }
  int Run(std::vector<std::string> args) { return RunSshare(args, t.env); }
  TestCli t;
};

constexpr const char* kShareHeader =
    "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare \n"
    "-------------------- ---------- ---------- ----------- ----------- ------------- ---------- "
    "\n";
constexpr const char* kShareRows =
    "root                                          0.000000           0      1.000000            \n"
    " root                      root          1    1.000000           0      0.000000   1.000000 "
    "\n";

TEST_F(SshareTest, DefaultAndAllMatchReference) {
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(t.out.str(), std::string(kShareHeader) + kShareRows);
  t.out.str("");
  EXPECT_EQ(Run({"-a"}), 0);
  EXPECT_EQ(t.out.str(), std::string(kShareHeader) + kShareRows);
}

TEST_F(SshareTest, UserRowsFilteredUnlessAll) {
  Row("phys", "", 1, 3, 0.75, 1234.4, 0.5, -1, 1.5);
  Row("phys", "alice", 2, 1, 0.75, 1234.4, 1.0, 0.5, 1.0);
  EXPECT_EQ(Run({"-n"}), 0);  // caller is root: alice's row is hidden
  EXPECT_EQ(t.out.str(), std::string(kShareRows) +
                             " phys                                    3    0.750000        1234   "
                             "   0.500000            \n");
  t.out.str("");
  EXPECT_EQ(Run({"-n", "-u", "alice", "-A", "phys"}), 0);
  EXPECT_EQ(t.out.str(),
            " phys                                    3    0.750000        1234      0.500000      "
            "      \n"
            "  phys                    alice          1    0.750000        1234      1.000000   "
            "0.500000 \n");
}

TEST_F(SshareTest, LongAndParsable) {
  EXPECT_EQ(Run({"-l", "-n"}), 0);
  std::string line = t.out.str().substr(t.out.str().find('\n') + 1);
  EXPECT_EQ(line,
            " root                      root          1    1.000000           0    0.000000"
            "      0.000000   1.000000        inf " +
                std::string(30, ' ') + " " + std::string(30, ' ') + " \n");
  t.out.str("");
  EXPECT_EQ(Run({"-P", "-a"}), 0);
  EXPECT_EQ(t.out.str(),
            "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
            "root|||0.000000|0|1.000000|\n"
            "root|root|1|1.000000|0|0.000000|1.000000\n");
}

}  // namespace
}  // namespace sluice
