// The controller's web dashboard end to end in Debian's headless chromium, driven by
// Playwright (tests/dashboard/dashboard_check.mjs): the login with a token from the real
// `scontrol token`, the cluster's nodes on the GPU map, a GPU job on exactly the GPUs the
// controller gave it within 2 s of its submission and gone when it ends, a held job in
// the queue with its reason in words; screenshots in build/test-artifacts/dashboard.
// Also the endpoint's own answers: the page and its assets, 401 without a token.
#include <httplib.h>
#include <unistd.h>

#include <filesystem>

#include "cluster_fixture.h"
#include "local/process.h"

namespace sluice::testing {
namespace {

constexpr char kChromium[] = "/usr/bin/chromium";

class DashboardTest : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    const std::string url = cluster_->DashboardUrl();
    ASSERT_FALSE(url.empty());
    url_ = url;
    port_ = std::stoi(url.substr(url.rfind(':') + 1));
  }
  std::string Token() {
    RunResult r = Run({"scontrol", "token", "lifespan=600"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string token = r.out.substr(r.out.find('=') + 1);
    while (!token.empty() && token.back() == '\n') token.pop_back();
    return token;
  }
  std::string url_;
  int port_ = 0;
};

TEST_F(DashboardTest, ServesThePageItsAssetsAndStateOnlyWithAToken) {
  httplib::Client c("127.0.0.1", port_);
  for (const char* path : {"/", "/dashboard", "/dashboard/"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_NE(r->body.find("<title>Sluice dashboard</title>"), std::string::npos);
    EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  }
  auto js = c.Get("/dashboard/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_NE(js->body.find("/dashboard/state"), std::string::npos);
  auto css = c.Get("/dashboard/style.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->status, 200);
  EXPECT_EQ(c.Get("/dashboard/missing.js")->status, 404);
  // The state needs a token, even from local root; a forged one is refused.
  EXPECT_EQ(c.Get("/dashboard/state")->status, 401);
  EXPECT_EQ(c.Get("/dashboard/state", {{"X-SLURM-USER-TOKEN", "e30.e30.e30"}})->status, 401);
  auto state = c.Get("/dashboard/state", {{"X-SLURM-USER-TOKEN", Token()}});
  ASSERT_TRUE(state);
  EXPECT_EQ(state->status, 200);
  EXPECT_NE(state->body.find("\"gpu_hours_24h\""), std::string::npos) << state->body;
  EXPECT_EQ(c.Post("/dashboard/state", "", "text/plain")->status, 405);
}

TEST_F(DashboardTest, ChromiumShowsAGpuJobOnItsGpusWithinTwoSeconds) {
  ASSERT_EQ(access(kChromium, X_OK), 0) << kChromium << " missing: scripts/install-deps";
  std::filesystem::create_directories(SLUICE_ARTIFACT_DIR);
  RunOptions o;
  o.extra_env = cluster_->Env();
  o.extra_env.push_back("PATH=" + BinDir() + ":" + getenv("PATH"));
  o.extra_env.push_back("DASHBOARD_URL=" + url_);
  o.extra_env.push_back("SLURM_JWT=" + Token());
  o.extra_env.push_back("ARTIFACT_DIR=" SLUICE_ARTIFACT_DIR);
  std::string nodes;
  for (int i = 0; i < 4; ++i) nodes += (i ? "," : "") + cluster_->NodeName(i);
  o.extra_env.push_back("EXPECT_NODES=" + nodes);
  o.cwd = work_dir();
  o.timeout_ms = 120'000;
  RunResult r = RunCommand({"node", SLUICE_DASHBOARD_CHECK}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::cout << r.out;
  for (const char* shot : {"dashboard-login.png", "dashboard-running.png", "dashboard-ended.png"})
    EXPECT_TRUE(std::filesystem::exists(std::string(SLUICE_ARTIFACT_DIR) + "/" + shot)) << shot;
}

}  // namespace
}  // namespace sluice::testing
