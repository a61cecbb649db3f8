// sluicerestd end to end: tokens from the real `scontrol token`, a job submitted, watched
// and cancelled over HTTP as another user, the same authorization as the commands
// (PrivateData, own jobs only), refused tokens (forged, expired, another user's), and a
// walk of every path the served OpenAPI document lists.
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

using nlohmann::json;

class RestTest : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.extra_config_lines = {"PrivateData=jobs"};
    return o;
  }
  void SetUp() override {
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    const std::string url = cluster_->RestUrl();
    ASSERT_FALSE(url.empty());
    port_ = std::stoi(url.substr(url.rfind(':') + 1));
    httplib::Client c("127.0.0.1", port_);
    for (int i = 0; i < 200; ++i) {  // sluicerestd starts beside the agents
      if (auto r = c.Get("/openapi.json"); r && r->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL() << "sluicerestd not answering: "
           << ReadFile(cluster_->state_dir() + "/log/sluicerestd.log");
  }

  // `scontrol token ARGS` as `uid` (root when unset): the token, or "" with the test failed.
  std::string Token(std::vector<std::string> args = {}, std::optional<TestUser> as = {}) {
    args.insert(args.begin(), {"scontrol", "token"});
    RunOptions o;
    if (as) {
      o.uid = as->uid;
      o.gid = as->gid;
    }
    RunResult r = Run(args, o);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("SLURM_JWT=", 0), 0u) << r.out;
    std::string token = r.out.substr(r.out.find('=') + 1);
    while (!token.empty() && token.back() == '\n') token.pop_back();
    return token;
  }

  struct Reply {
    int status = 0;
    json body;
  };
  Reply Call(const std::string& method, const std::string& path, const std::string& token,
             const std::string& user = "", const std::string& body = "") {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30);
    httplib::Headers h;
    if (!token.empty()) h.emplace("X-SLURM-USER-TOKEN", token);
    if (!user.empty()) h.emplace("X-SLURM-USER-NAME", user);
    httplib::Result r = method == "GET"      ? c.Get(path.c_str(), h)
                        : method == "DELETE" ? c.Delete(path.c_str(), h)
                                             : c.Post(path.c_str(), h, body, "application/json");
    if (!r) return {};
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  static std::string FirstError(const Reply& r) {
    if (!r.body.contains("errors") || r.body["errors"].empty()) return "";
    return r.body["errors"][0]["error"].get<std::string>();
  }

  int port_ = 0;
};

TEST_F(RestTest, TokensSubmitWatchAndCancelAsTheirUser) {
  auto user = EnsureTestUser("sluicetest_a");
  if (!user) GTEST_SKIP() << "needs root to create a test user";
  const std::string token = Token({"username=sluicetest_a", "lifespan=600"});
  // Only root may ask for another user's token.
  RunOptions as_user;
  as_user.uid = user->uid;
  as_user.gid = user->gid;
  RunResult refused = Run({"scontrol", "token", "username=root"}, as_user);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("Error fetching token"), std::string::npos) << refused.err;
  EXPECT_FALSE(Token({}, user).empty());  // a user's own

  // Root's held job: PrivateData=jobs hides it from the user, who may not cancel it.
  const int64_t root_job = Submit({"--hold", "--wrap", "sleep 60"});
  json script = {{"script", "#!/bin/bash\necho rank=$SLURM_PROCID job=$SLURM_JOB_ID\n"},
                 {"job",
                  {{"name", "rest-job"},
                   {"nodes", 2},
                   {"gres", "gpu:2"},
                   {"time_limit", 5},
                   {"current_working_directory", "/tmp"},
                   {"standard_output", "/tmp/rest-%j.out"},
                   {"environment", {{"PATH", "/usr/bin:/bin"}}}}}};
  Reply sub = Call("POST", "/slurm/v0.0.38/job/submit", token, "sluicetest_a", script.dump());
  ASSERT_EQ(sub.status, 200) << sub.body.dump();
  const int64_t id = sub.body["job_id"].get<int64_t>();
  ASSERT_GT(id, root_job);

  std::string state;
  for (int i = 0; i < 300 && state != "COMPLETED"; ++i) {
    Reply got = Call("GET", "/slurm/v0.0.38/job/" + std::to_string(id), token, "sluicetest_a");
    ASSERT_EQ(got.status, 200) << got.body.dump();
    const json& j = got.body["jobs"][0];
    EXPECT_EQ(j["user_name"], "sluicetest_a");
    EXPECT_EQ(j["name"], "rest-job");
    EXPECT_EQ(j["node_count"], 2);
    state = j["job_state"].get<std::string>();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(state, "COMPLETED");
  EXPECT_EQ(ReadFile("/tmp/rest-" + std::to_string(id) + ".out"),
            "rank=0 job=" + std::to_string(id) + "\n");
  std::remove(("/tmp/rest-" + std::to_string(id) + ".out").c_str());

  Reply mine = Call("GET", "/slurm/v0.0.38/jobs", token, "sluicetest_a");
  ASSERT_EQ(mine.status, 200);
  for (const json& j : mine.body["jobs"]) EXPECT_EQ(j["user_name"], "sluicetest_a") << j.dump();
  Reply theirs =
      Call("DELETE", "/slurm/v0.0.38/job/" + std::to_string(root_job), token, "sluicetest_a");
  EXPECT_NE(theirs.status, 200) << theirs.body.dump();
  EXPECT_EQ(State(root_job), "PENDING");
  Reply held = Call("GET", "/slurm/v0.0.38/job/" + std::to_string(root_job), Token());
  ASSERT_EQ(held.status, 200) << held.body.dump();
  EXPECT_EQ(held.body["jobs"][0].value("explanation", ""),
            "held by its user: `scontrol release " + std::to_string(root_job) + "` lets it run");
  Reply cancel = Call("DELETE", "/slurm/v0.0.38/job/" + std::to_string(root_job), Token());
  EXPECT_EQ(cancel.status, 200) << cancel.body.dump();
  EXPECT_EQ(WaitState(root_job, {"CANCELLED"}), "CANCELLED");

  // The same token works for the commands (SLURM_JWT), as the user.
  RunOptions with_jwt;
  with_jwt.extra_env = {"SLURM_JWT=" + token};
  RunResult q = Run({"squeue", "-h", "-t", "all", "-o", "%i %u"}, with_jwt);
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_NE(q.out.find(std::to_string(id) + " sluicetest_a"), std::string::npos) << q.out;
  EXPECT_EQ(q.out.find(std::to_string(root_job)), std::string::npos) << q.out;
}

// argv reaches the script as $1, $2, ...; "jobs" submits one heterogeneous job.
TEST_F(RestTest, ScriptArgumentsAndHeterogeneousJobs) {
  const std::string root = Token();
  const std::string out = "/tmp/rest-argv-" + std::to_string(::getpid()) + ".out";
  json args = {{"script", "#!/bin/bash\necho \"$#:$1|$2\"\n"},
               {"job",
                {{"argv", json::array({"a b", "c"})},
                 {"standard_output", out},
                 {"environment", {{"PATH", "/usr/bin:/bin"}}}}}};
  Reply sub = Call("POST", "/slurm/v0.0.38/job/submit", root, "", args.dump());
  ASSERT_EQ(sub.status, 200) << sub.body.dump();
  const int64_t id = sub.body["job_id"].get<int64_t>();
  EXPECT_EQ(WaitState(id, {"COMPLETED", "FAILED"}), "COMPLETED");
  EXPECT_EQ(ReadFile(out), "2:a b|c\n");
  std::remove(out.c_str());

  json het = {{"script", "#!/bin/bash\ntrue\n"},
              {"jobs",
               {{{"name", "het"}, {"hold", true}, {"environment", {{"PATH", "/bin"}}}},
                {{"nodes", 2}, {"gres", "gpu:1"}}}}};
  Reply hsub = Call("POST", "/slurm/v0.0.38/job/submit", root, "", het.dump());
  ASSERT_EQ(hsub.status, 200) << hsub.body.dump();
  const int64_t first = hsub.body["job_id"].get<int64_t>();
  const std::string hid = std::to_string(first);
  RunResult q = Run(  // components are consecutive jobs
      {"squeue", "-h", "-o", "%i %D %j", "-j", hid + "," + std::to_string(first + 1)});
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_NE(q.out.find(hid + "+0 1 het"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find(hid + "+1 2 "), std::string::npos) << q.out;
  EXPECT_EQ(Run({"scancel", hid}).exit_code, 0);
}

TEST_F(RestTest, RefusesMissingForgedExpiredAndBorrowedTokens) {
  auto user = EnsureTestUser("sluicetest_a");
  if (!user) GTEST_SKIP() << "needs root to create a test user";
  Reply none = Call("GET", "/slurm/v0.0.38/jobs", "");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body["errors"][0]["error_number"], 6000);

  std::string token = Token({"username=sluicetest_a"});
  std::string forged = token;
  forged[forged.size() - 2] = forged[forged.size() - 2] == 'A' ? 'B' : 'A';
  EXPECT_EQ(Call("GET", "/slurm/v0.0.38/jobs", forged).status, 401);
  Reply borrowed = Call("GET", "/slurm/v0.0.38/jobs", token, "root");
  EXPECT_EQ(borrowed.status, 401);
  EXPECT_EQ(FirstError(borrowed), "Invalid JWT: token of sluicetest_a used for user root");

  std::string brief = Token({"username=sluicetest_a", "lifespan=1"});
  EXPECT_EQ(Call("GET", "/slurm/v0.0.38/ping", brief).status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  Reply expired = Call("GET", "/slurm/v0.0.38/jobs", brief);
  EXPECT_EQ(expired.status, 401);
  EXPECT_EQ(FirstError(expired), "Invalid JWT: token expired");

  // A valid user token reads what any user may.
  Reply diag = Call("GET", "/slurm/v0.0.38/diag", token);
  EXPECT_EQ(diag.status, 200) << diag.body.dump();
}

// Every path of the document the server serves answers 200 with Slurm's envelope.
TEST_F(RestTest, EveryDocumentedPathAnswers) {
  const std::string root = Token();
  ASSERT_EQ(Run({"sacctmgr", "-i", "add", "account", "ml"}).exit_code, 0);
  ASSERT_EQ(Run({"sacctmgr", "-i", "add", "user", "root", "account=ml"}).exit_code, 0);
  RunResult resv = Run({"scontrol", "create", "reservation", "ReservationName=maint",
                        "StartTime=now+1hour", "Duration=60", "Nodes=node01", "Users=root"});
  ASSERT_EQ(resv.exit_code, 0) << resv.err;
  const int64_t job = Submit({"--wrap", "true"});
  WaitDone(job);
  const int64_t held = Submit({"--hold", "--wrap", "true"});

  Reply doc = Call("GET", "/openapi.json", "");
  ASSERT_EQ(doc.status, 200);
  Reply clusters = Call("GET", "/slurmdb/v0.0.38/clusters", root);
  ASSERT_EQ(clusters.status, 200) << clusters.body.dump();
  ASSERT_EQ(clusters.body["clusters"].size(), 1u) << clusters.body.dump();
  const std::map<std::string, std::string> values{
      {"{job_id}", std::to_string(held)},
      {"{cluster_name}", clusters.body["clusters"][0]["name"].get<std::string>()},
      {"{node_name}", "node01"},
      {"{partition_name}", "gpu"},
      {"{reservation_name}", "maint"},
      {"{account_name}", "ml"},
      {"{qos_name}", "normal"},
      {"{user_name}", "root"}};
  int walked = 0;
  for (const auto& [path, methods] : doc.body["paths"].items()) {
    std::string concrete = path;
    for (const auto& [param, value] : values)
      if (size_t at = concrete.find(param); at != std::string::npos)
        concrete.replace(at, param.size(), value);
    for (const auto& [method, op] : methods.items()) {
      std::string m = method;
      for (char& ch : m) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      std::string body;
      if (concrete.ends_with("/job/submit"))
        body = json{{"script", "#!/bin/sh\ntrue\n"},
                    {"job", {{"environment", {{"PATH", "/bin"}}}, {"hold", true}}}}
                   .dump();
      else if (m == "POST")
        body = json{{"comment", "walked"}}.dump();
      if (m == "DELETE") continue;  // last, below: it cancels the held job
      Reply r = Call(m, concrete, root, "", body);
      ++walked;
      EXPECT_EQ(r.status, 200) << m << " " << concrete << ": " << r.body.dump();
      if (concrete.rfind("/openapi", 0) == 0) continue;
      EXPECT_TRUE(r.body.contains("meta") && r.body.contains("errors")) << m << " " << concrete;
      EXPECT_TRUE(r.body["errors"].empty()) << m << " " << concrete << ": " << r.body.dump();
    }
  }
  EXPECT_GE(walked, 25);
  Reply del = Call("DELETE", "/slurm/v0.0.38/job/" + std::to_string(held), root);
  EXPECT_EQ(del.status, 200) << del.body.dump();
  EXPECT_EQ(WaitState(held, {"CANCELLED"}), "CANCELLED");
  // The update went through scontrol: the comment is on the job.
  RunResult show = Run({"scontrol", "show", "job", std::to_string(held)});
  EXPECT_NE(show.out.find("Comment=walked"), std::string::npos) << show.out;
}

}  // namespace
}  // namespace sluice::testing
