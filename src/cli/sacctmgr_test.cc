// sacctmgr: command-line parsing, output columns (snakemake's exact command), messages
// and exit codes, against a fake API.
#include "cli/sacctmgr.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "cli/commit_prompt.h"
#include "cli/sacctmgr_args.h"

#include <nlohmann/json.hpp>

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
  EXPECT_EQ(t.err.str(),
            "sacctmgr: error: Your user doesn't have privilege to perform this action\n");
  t.err.str("");
  api.status = Status(Code::kAlreadyExists, " Nothing new added.");
  EXPECT_EQ(Run({"add", "account", "x"}), 1);
  EXPECT_EQ(t.err.str(), " Nothing new added.\n");
  t.err.str("");
  EXPECT_EQ(Run({"show", "gadgets"}), 1);
  EXPECT_NE(t.err.str().find("No valid entity"), std::string::npos);
}

// Without -i: a check_only request shows the change, then the prompt decides.
class SacctmgrConfirmTest : public SacctmgrTest {
 protected:
  void SetUp() override {
    SacctmgrTest::SetUp();
    api.reply.add_lines(" Adding Account(s)");
    api.reply.add_lines("  physics");
    api.reply.set_changes(true);
  }
  static constexpr char kPreview[] =
      " Adding Account(s)\n  physics\n"
      "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): ";
};

TEST_F(SacctmgrConfirmTest, YesCommits) {
  t.in.str("y\n");
  EXPECT_EQ(Run({"add", "account", "physics"}), 0);
  EXPECT_EQ(t.out.str(), kPreview);
  ASSERT_EQ(api.requests.size(), 2u);
  EXPECT_TRUE(api.requests[0].check_only());
  EXPECT_FALSE(api.requests[1].check_only());
  EXPECT_EQ(api.requests[1].names(0), "physics");
  t.in.clear();
  t.in.str("Y\n");
  EXPECT_EQ(Run({"modify", "user", "alice", "set", "maxjobs=2"}), 0);
  EXPECT_EQ(api.requests.size(), 4u);
}

TEST_F(SacctmgrConfirmTest, NoAndEndOfInputDiscard) {
  for (const char* answer : {"n\n", "", "no\n", "\n", " maybe\n"}) {
    t.out.str("");
    t.in.clear();
    t.in.str(answer);
    api.requests.clear();
    EXPECT_EQ(Run({"delete", "account", "physics"}), 0) << answer;
    EXPECT_EQ(t.out.str(), std::string(kPreview) + " Changes Discarded.\n") << answer;
    ASSERT_EQ(api.requests.size(), 1u) << answer;  // only the check: nothing committed
    EXPECT_TRUE(api.requests[0].check_only());
  }
}

TEST_F(SacctmgrConfirmTest, ImmediateNeverAsks) {
  t.in.str("n\n");
  EXPECT_EQ(Run({"-i", "add", "account", "physics"}), 0);
  EXPECT_EQ(t.out.str(), " Adding Account(s)\n  physics\n");
  ASSERT_EQ(api.requests.size(), 1u);
  EXPECT_FALSE(api.requests[0].check_only());
  EXPECT_EQ(Run({"--immediate", "delete", "account", "physics"}), 0);
  EXPECT_EQ(api.requests.size(), 2u);
}

TEST_F(SacctmgrConfirmTest, NothingToChangeOrAnErrorDoesNotAsk) {
  api.reply.set_changes(false);
  t.in.str("y\n");
  EXPECT_EQ(Run({"modify", "user", "alice", "set", "maxjobs=2"}), 0);
  EXPECT_EQ(t.out.str(), " Adding Account(s)\n  physics\n");
  EXPECT_EQ(api.requests.size(), 1u);
  api.status = PermissionDenied("Your user doesn't have privilege to perform this action");
  EXPECT_EQ(Run({"add", "account", "x"}), 1);
  EXPECT_EQ(api.requests.size(), 2u);
  EXPECT_EQ(t.err.str(),
            "sacctmgr: error: Your user doesn't have privilege to perform this action\n");
}

TEST(CommitPrompt, NoAnswerInTimeIsNo) {
  TestCli t;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  t.env.stdin_fd = fds[0];
  t.in.str("y\n");  // never looked at: the descriptor stays silent
  EXPECT_FALSE(AskCommit(t.env, 50));
  EXPECT_EQ(t.out.str(),
            "Would you like to commit changes? (You have 0 seconds to decide)\n(N/y): \n");
  ASSERT_EQ(write(fds[1], "y\n", 2), 2);  // an answer is waiting: read
  EXPECT_TRUE(AskCommit(t.env, 50));
  close(fds[0]);
  close(fds[1]);
}

TEST_F(SacctmgrTest, QosColumns) {
  QosInfo* q = api.reply.add_qos();
  q->set_name("normal");
  q->set_usage_factor(1);
  EXPECT_EQ(Run({"-P", "show", "qos", "format=name,priority,usagefactor,preemptmode,gracetime"}),
            0);
  EXPECT_EQ(t.out.str(),
            "Name|Priority|UsageFactor|PreemptMode|GraceTime\n"
            "normal|0|1.000000|cluster|00:00:00\n");
}

// --json: every entity the Slurm testsuite asks for is JSON with the v0.0.38 keys.
TEST_F(SacctmgrTest, JsonForEveryEntity) {
  AssocAccount* a = api.reply.add_accounts();
  a->set_name("physics");
  a->set_parent("root");
  a->mutable_limits()->set_grp_tres("cpu=8,gres/gpu=2");
  QosInfo* q = api.reply.add_qos();
  q->set_name("normal");
  q->set_preempt_mode(QOS_PREEMPT_REQUEUE);
  api.config.add_keys("GresTypes");
  api.config.add_values("gpu");
  const std::map<std::string, std::string> key = {
      {"accounts", "accounts"}, {"associations", "associations"},
      {"clusters", "clusters"}, {"qos", "QOS"},
      {"wckeys", "wckeys"},     {"users", "users"},
      {"tres", "TRES"}};
  for (const auto& [entity, list] : key) {
    t.out.str("");
    ASSERT_EQ(Run({"--json", "show", entity}), 0) << entity << t.err.str();
    nlohmann::json j = nlohmann::json::parse(t.out.str());
    EXPECT_TRUE(j.contains("meta")) << entity;
    EXPECT_TRUE(j.at(list).is_array()) << entity;
  }
  t.out.str("");
  ASSERT_EQ(Run({"--json", "show", "users"}), 0);
  nlohmann::json users = nlohmann::json::parse(t.out.str());
  ASSERT_EQ(users["users"].size(), 1u);  // alice once, with both associations
  EXPECT_EQ(users["users"][0]["default"]["account"], "physics");
  EXPECT_EQ(users["users"][0]["associations"].size(), 2u);
  t.out.str("");
  ASSERT_EQ(Run({"--json", "show", "associations"}), 0);
  nlohmann::json assocs = nlohmann::json::parse(t.out.str());
  const nlohmann::json grp = assocs["associations"][0]["max"]["tres"]["group"]["active"];
  EXPECT_EQ(grp,
            nlohmann::json::parse(
                R"([{"type":"cpu","name":"","count":8},{"type":"gres","name":"gpu","count":2}])"));
  t.out.str("");
  ASSERT_EQ(Run({"--json", "show", "tres"}), 0);
  nlohmann::json tres = nlohmann::json::parse(t.out.str());
  EXPECT_EQ(tres["TRES"].back(),
            nlohmann::json::parse(R"({"type":"gres","name":"gpu","id":1001})"));
  t.out.str("");
  ASSERT_EQ(Run({"show", "tres"}), 0);
  EXPECT_NE(t.out.str().find("    gres        gpu   1001 \n"), std::string::npos) << t.out.str();
  EXPECT_EQ(Run({"-i", "add", "wckey", "x"}), 1);
  EXPECT_NE(t.err.str().find("WCKeys are not tracked"), std::string::npos) << t.err.str();
}

}  // namespace
}  // namespace sluice
