// The controller's /metrics scraped by Debian's real Prometheus server: the series move
// as jobs start, run and end, as seen through Prometheus's query API; and the endpoint's
// own answers (areas, unknown paths, bad tokens).
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cluster_fixture.h"
#include "common/clock.h"
#include "local/process.h"
#include "rpc/credential.h"

namespace sluice::testing {
namespace {

constexpr char kPrometheus[] = "/usr/bin/prometheus";

class MetricsTest : public ClusterTest {
 protected:
  // Per-user series are then for admins only: local root (this test), or a root token.
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.extra_config_lines = {"PrivateData=jobs"};
    return o;
  }
  void SetUp() override {
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    const std::string url = cluster_->MetricsUrl();
    ASSERT_FALSE(url.empty());
    metrics_port_ = std::stoi(url.substr(url.rfind(':') + 1));
  }
  void TearDown() override {
    if (prom_pid_ > 0) StopProcess(prom_pid_, SIGTERM, 5000);
    ClusterTest::TearDown();
  }

  // Prometheus on a free port, scraping the controller every second.
  void StartPrometheus() {
    ASSERT_EQ(access(kPrometheus, X_OK), 0) << kPrometheus << " missing: scripts/install-deps";
    auto port = FreeTcpPort();
    ASSERT_TRUE(port.ok());
    prom_port_ = *port;
    const std::string dir = root_dir_ + "/prometheus";
    std::filesystem::create_directories(dir + "/data");
    std::ofstream(dir + "/prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        << "scrape_configs:\n  - job_name: sluice\n    static_configs:\n"
        << "      - targets: ['127.0.0.1:" << metrics_port_ << "']\n"
        << "  - job_name: sluiced\n    static_configs:\n      - targets: [" << AgentTargets()
        << "]\n";
    auto pid = SpawnDetached({kPrometheus, "--config.file=" + dir + "/prometheus.yml",
                              "--storage.tsdb.path=" + dir + "/data",
                              "--web.listen-address=127.0.0.1:" + std::to_string(prom_port_)},
                             dir + "/prometheus.log");
    ASSERT_TRUE(pid.ok()) << pid.status().message();
    prom_pid_ = *pid;
    httplib::Client c("127.0.0.1", prom_port_);
    for (int i = 0; i < 300; ++i) {
      if (auto r = c.Get("/-/ready"); r && r->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL() << "prometheus not ready: " << ReadFile(dir + "/prometheus.log");
  }

  // Every agent's metrics endpoint, as 'host:port' items of a YAML list.
  std::string AgentTargets() {
    std::string out;
    for (int i = 0; i < 4; ++i) {
      std::string url = cluster_->AgentMetricsUrl(cluster_->NodeName(i));
      EXPECT_FALSE(url.empty()) << cluster_->NodeName(i);
      url = url.substr(url.find("//") + 2);
      out += (i ? ", '" : "'") + url.substr(0, url.find('/')) + "'";
    }
    return out;
  }

  // The value of an instant query with one result; NaN when it has none.
  double Query(const std::string& expr) {
    httplib::Client c("127.0.0.1", prom_port_);
    auto r = c.Get("/api/v1/query", httplib::Params{{"query", expr}}, httplib::Headers{});
    if (!r || r->status != 200) return NAN;
    auto doc = nlohmann::json::parse(r->body, nullptr, false);
    if (doc.is_discarded() || doc["status"] != "success") return NAN;
    const auto& result = doc["data"]["result"];
    if (result.size() != 1) return NAN;
    return std::stod(result[0]["value"][1].get<std::string>());
  }
  // Polls `expr` until it equals `want`; returns the last value.
  double WaitQuery(const std::string& expr, double want, int timeout_ms = 30'000) {
    double v = NAN;
    for (int waited = 0; waited < timeout_ms; waited += 250) {
      v = Query(expr);
      if (v == want) return v;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return v;
  }

  httplib::Result Get(const std::string& path, const httplib::Headers& h = {}) {
    httplib::Client c("127.0.0.1", metrics_port_);
    return c.Get(path, h);
  }

  int metrics_port_ = 0;
  int prom_port_ = 0;
  pid_t prom_pid_ = -1;
};

TEST_F(MetricsTest, PrometheusSeesJobsStartRunAndEnd) {
  StartPrometheus();
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(WaitQuery("up{job=\"sluice\"}", 1), 1);
  EXPECT_EQ(WaitQuery("sum(sluice_partition_gpus{state=\"total\"})", 32), 32);
  EXPECT_EQ(WaitQuery("sum(sluice_partition_gpus{state=\"idle\"})", 32), 32);
  EXPECT_EQ(WaitQuery("sluice_nodes{state=\"idle\"}", 4), 4);

  const int64_t runs = Submit({"-N2", "--gres=gpu:4", "-o", "/dev/null", "--wrap", "sleep 60"});
  const int64_t held = Submit({"--hold", "-o", "/dev/null", "--wrap", "true"});
  ASSERT_EQ(WaitState(runs, {"RUNNING"}), "RUNNING");
  EXPECT_EQ(WaitQuery("sluice_jobs{state=\"RUNNING\",partition=\"gpu\"}", 1), 1);
  EXPECT_EQ(WaitQuery("sum(sluice_partition_gpus{state=\"allocated\"})", 8), 8);
  EXPECT_EQ(WaitQuery("sum(sluice_partition_gpus{state=\"idle\"})", 24), 24);
  EXPECT_EQ(WaitQuery("sluice_jobs_pending{reason=\"JobHeldUser\"}", 1), 1);
  EXPECT_EQ(WaitQuery("sluice_user_gpus_allocated{user=\"root\"}", 8), 8);
  EXPECT_EQ(WaitQuery("sluice_jobs_submitted_total", 2), 2);
  EXPECT_EQ(WaitQuery("sluice_rpc_requests_total{method=\"SubmitJob\"}", 2), 2);
  EXPECT_EQ(WaitQuery("clamp_max(sluice_sched_pass_duration_seconds_count, 1)", 1), 1);
  // The agents: all registered and answered lately; the batch host runs the job's stepd.
  EXPECT_EQ(WaitQuery("count(sluice_agent_registered == 1)", 4), 4);
  EXPECT_EQ(WaitQuery("max(sluice_agent_heartbeat_age_seconds) < bool 30", 1), 1);
  EXPECT_EQ(WaitQuery("sum(sluice_agent_running_jobs)", 1), 1);
  EXPECT_EQ(WaitQuery("sum(sluice_agent_stepd_spawn_seconds_count)", 1), 1);

  ASSERT_EQ(Run({"scancel", std::to_string(runs), std::to_string(held)}).exit_code, 0);
  WaitDone(runs);
  EXPECT_EQ(WaitQuery("sluice_jobs_cancelled_total", 2), 2);
  EXPECT_EQ(WaitQuery("sum(sluice_partition_gpus{state=\"allocated\"})", 0), 0);
  EXPECT_EQ(WaitQuery("sum(sluice_jobs{state=\"CANCELLED\"})", 2), 2);
  EXPECT_EQ(WaitQuery("sum(sluice_jobs{state=\"RUNNING\"}) or vector(0)", 0), 0);
  EXPECT_EQ(WaitQuery("sum(sluice_agent_running_jobs)", 0), 0);
}

TEST_F(MetricsTest, EachAgentServesItsOwnMetrics) {
  const std::string node = cluster_->NodeName(2);
  const std::string url = cluster_->AgentMetricsUrl(node);
  ASSERT_FALSE(url.empty());
  const std::string hostport = url.substr(7, url.find('/', 7) - 7);
  httplib::Client c("127.0.0.1", std::stoi(hostport.substr(hostport.find(':') + 1)));
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
  EXPECT_NE(r->body.find("sluice_agent_registered{node=\"" + node + "\"} 1\n"), std::string::npos)
      << r->body;
  EXPECT_NE(r->body.find("# TYPE sluice_agent_stepd_spawn_seconds histogram"), std::string::npos);
  EXPECT_EQ(c.Get("/nosuch")->status, 404);
  EXPECT_EQ(c.Post("/metrics", "x", "text/plain")->status, 405);
}

TEST_F(MetricsTest, EndpointAnswersAreasAndRefusesBadInput) {
  auto all = Get("/metrics");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->status, 200);
  EXPECT_NE(all->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
  EXPECT_NE(all->body.find("\nsluice_partition_cpus{partition=\"gpu\",state=\"total\"} 64\n"),
            std::string::npos);
  auto nodes = Get("/metrics/nodes");
  ASSERT_TRUE(nodes);
  EXPECT_NE(nodes->body.find("sluice_nodes{state=\"idle\"} 4"), std::string::npos);
  EXPECT_EQ(nodes->body.find("sluice_jobs"), std::string::npos);
  auto missing = Get("/metrics/nosuch");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  // A scraper that asks for OpenMetrics (Prometheus does) gets it.
  auto om =
      Get("/metrics", {{"Accept", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"}});
  ASSERT_TRUE(om);
  EXPECT_EQ(om->get_header_value("Content-Type"),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_TRUE(om->body.ends_with("\n# EOF\n")) << om->body.substr(om->body.size() - 200);
  EXPECT_NE(om->body.find("# TYPE sluice_jobs_submitted counter\nsluice_jobs_submitted_total "),
            std::string::npos);
  // The caller is the token's uid: a user's token hides the per-user series; root's, or
  // no token from local root (the socket's owner), shows them.
  auto key = LoadClusterKey(cluster_->state_dir() + "/state/cluster.key", false);
  ASSERT_TRUE(key.ok()) << key.status().message();
  const int64_t expires = RealClock().NowMs() + 60'000;
  auto as_user = Get("/metrics/jobs-users-accts",
                     {{"Authorization", "Bearer " + SignCredential(*key, {1000, 1000, expires})}});
  ASSERT_TRUE(as_user);
  EXPECT_EQ(as_user->status, 200);
  EXPECT_EQ(as_user->body, "");
  auto as_root = Get("/metrics/jobs-users-accts",
                     {{"X-SLURM-USER-TOKEN", SignCredential(*key, {0, 0, expires})}});
  ASSERT_TRUE(as_root);
  EXPECT_NE(as_root->body.find("# TYPE sluice_user_jobs gauge"), std::string::npos);
  EXPECT_NE(Get("/metrics")->body.find("# TYPE sluice_user_jobs gauge"), std::string::npos);
  auto bad = Get("/metrics", {{"Authorization", "Bearer not-a-token"}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 401);
  EXPECT_NE(bad->body.find("Invalid credential"), std::string::npos);
}

}  // namespace
}  // namespace sluice::testing
