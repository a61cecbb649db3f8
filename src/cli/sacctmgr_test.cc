// sacctmgr: command-line parsing, output columns (snakemake's exact command), messages
// and exit codes, against a fake API.
#include "cli/sacctmgr.h"

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "cli/sacctmgr_args.h"

namespace sluice {
namespace {

class SacctmgrApi : public FakeApi {
 public:
  std::vector<SacctmgrRequest> requests;
  SacctmgrReply reply;
  Status status;
  Expected<SacctmgrReply> Sacctmgr(const SacctmgrRequest& r) override {
    requests.push_back(r);
    if (!status.ok()) return status;
    return reply;
  }
};

TEST(SacctmgrArgs, ModifyWhereSet) {
  auto c = ParseSacctmgrArgs({"-i", "modify", "user", "where", "name=bob", "account=phys", "set",
                              "maxjobs=2", "qos+=high"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->request.verb(), "modify");
  EXPECT_EQ(c->request.entity(), "user");
  ASSERT_EQ(c->request.where_size(), 2);
  EXPECT_EQ(c->request.where(0), "name=bob");
  ASSERT_EQ(c->request.set_size(), 2);
  EXPECT_EQ(c->request.set(1), "qos+=high");
}

TEST(SacctmgrArgs, AddTakesNamesAndSettings) {
  auto c = ParseSacctmgrArgs({"create", "accounts", "a,b", "parent=root", "fairshare=5"});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->request.verb(), "add");
  EXPECT_EQ(c->request.entity(), "account");
  ASSERT_EQ(c->request.names_size(), 2);
  EXPECT_EQ(c->request.set_size(), 2);
}

TEST(SacctmgrArgs, Errors) {
  EXPECT_FALSE(ParseSacctmgrArgs({"frobnicate", "user"}).ok());
  EXPECT_FALSE(ParseSacctmgrArgs({"show", "widgets"}).ok());
  EXPECT_FALSE(ParseSacctmgrArgs({"modify", "user", "bob"}).ok());  // nothing to set
  EXPECT_FALSE(ParseSacctmgrArgs({"show", "user", "format=user%x"}).ok());
}

class SacctmgrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    t.env.connect = [this]() -> Expected<ClientApiInterface*> { return &api; };
    api.reply.add_clusters()->set_name("sluice");
    AssocUser* u = api.reply.add_users();
    u->set_user("alice");
    u->set_account("physics");
    u->set_default_account("physics");
    u->set_admin_level("None");
    u->set_shares(1);
    u = api.reply.add_users();
    u->set_user("alice");
    u->set_account("chem");
    u->set_default_account("physics");
    u->set_shares(1);
    u->mutable_limits()->set_max_jobs(4);
  }
  int Run(std::vector<std::string> args) { return RunSacctmgr(args, t.env); }
  TestCli t;
  SacctmgrApi api;
};

TEST_F(SacctmgrTest, SnakemakeAccountQuery) {
  EXPECT_EQ(Run({"-n", "-s", "list", "user", "alice", "format=account%20"}), 0);
  EXPECT_EQ(t.out.str(), "             physics \n                chem \n");
  ASSERT_EQ(api.requests.size(), 1u);
  EXPECT_EQ(api.requests[0].verb(), "show");
  EXPECT_EQ(api.requests[0].names(0), "alice");
}

TEST_F(SacctmgrTest, ListUserDefaultColumnsOneRowPerUser) {
  EXPECT_EQ(Run({"show", "user"}), 0);
  EXPECT_EQ(t.out.str(),
            "      User   Def Acct     Admin \n"
            "---------- ---------- --------- \n"
            "     alice    physics      None \n");
}

TEST_F(SacctmgrTest, ParsableAndWidthsAndTruncation) {
  EXPECT_EQ(Run({"-P", "-s", "show", "user", "format=user,account,maxjobs"}), 0);
  EXPECT_EQ(t.out.str(), "User|Account|MaxJobs\nalice|physics|\nalice|chem|4\n");
  t.out.str("");
  EXPECT_EQ(Run({"-p", "-n", "show", "user", "format=user"}), 0);
  EXPECT_EQ(t.out.str(), "alice|\n");
  t.out.str("");
  EXPECT_EQ(Run({"-n", "show", "user", "format=user%-8,defaultaccount%4"}), 0);
  EXPECT_EQ(t.out.str(), "alice    phy+ \n");
}

TEST_F(SacctmgrTest, ChangeMessagesAndErrors) {
  api.reply.add_lines(" Adding Account(s)");
  api.reply.add_lines("  physics");
  EXPECT_EQ(Run({"-i", "add", "account", "physics"}), 0);
  EXPECT_EQ(t.out.str(), " Adding Account(s)\n  physics\n");
  api.status = PermissionDenied("Your user doesn't have privilege to perform this action");
  EXPECT_EQ(Run({"-i", "add", "account", "x"}), 1);
  EXPECT_EQ(t.err.str(), "sacctmgr: error: Your user doesn't have privilege to perform this action\n");
  t.err.str("");
  api.status = Status(Code::kAlreadyExists, " Nothing new added.");
  EXPECT_EQ(Run({"add", "account", "x"}), 1);
  EXPECT_EQ(t.err.str(), " Nothing new added.\n");
  t.err.str("");
  EXPECT_EQ(Run({"show", "gadgets"}), 1);
  EXPECT_NE(t.err.str().find("No valid entity"), std::string::npos);
}

TEST_F(SacctmgrTest, QosColumns) {
  QosInfo* q = api.reply.add_qos();
  q->set_name("normal");
  q->set_usage_factor(1);
  EXPECT_EQ(Run({"-P", "show", "qos", "format=name,priority,usagefactor,preemptmode,gracetime"}), 0);
  EXPECT_EQ(t.out.str(), "Name|Priority|UsageFactor|PreemptMode|GraceTime\n"
                         "normal|0|1.000000|cluster|00:00:00\n");
}

}  // namespace
}  // namespace sluice
