// Accounting end to end: sacct sees a job from submission (live merge), its states,
// exit codes and steps (N.batch, N.0 with MaxRSS), every attempt of a requeued job
// (-D), records across a controller crash, --json, sreport GPU-hours; and the same
// controller writing to a real PostgreSQL server (accounting_storage/pgsql).
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "acct/acct_store.h"
#include "acct/pg_test_server.h"
#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Accounting : public ClusterTest {
 protected:
  // `sacct -P -n <args>` output.
  std::string Sacct(std::vector<std::string> args) {
    std::vector<std::string> argv = {"sacct", "-P", "-n"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = Run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  // Polls `sacct -P -n <args>` until it prints `want` (returns the last output).
  std::string WaitSacct(std::vector<std::string> args, const std::string& want,
                        int timeout_ms = 30'000) {
    std::string got;
    std::vector<std::string> argv = {"sacct", "-P", "-n"};
    argv.insert(argv.end(), args.begin(), args.end());
    for (int waited = 0; waited < timeout_ms; waited += 100) {
      got = Run(argv).out;  // the controller may be restarting: errors are retried
      if (got == want) return got;
      usleep(100'000);
    }
    return got;
  }
};

TEST_F(Accounting, LiveStatesExitCodesStepsAndJson) {
  int64_t id = Submit({"-H", "-J", "acctok", "-o", "/dev/null", "--wrap",
                       cluster_->BinPath("srun") +
                           " -n1 python3 -c 'x = bytearray(60 * 1024 * 1024); print(len(x))'"});
  std::string s = std::to_string(id);
  // Visible at once (live), pending.
  EXPECT_EQ(Sacct({"-X", "-j", s, "-o", "JobID,JobName,State"}), s + "|acctok|PENDING\n");
  ASSERT_EQ(Run({"scontrol", "release", s}).exit_code, 0);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string out =
      WaitSacct({"-j", s, "-o", "JobID,State,ExitCode"},
                s + "|COMPLETED|0:0\n" + s + ".batch|COMPLETED|0:0\n" + s + ".0|COMPLETED|0:0\n");
  EXPECT_EQ(out, s + "|COMPLETED|0:0\n" + s + ".batch|COMPLETED|0:0\n" + s + ".0|COMPLETED|0:0\n");
  // MaxRSS of the python step: at least the 60 MiB it touched.
  std::string rss = Sacct({"-j", s + ".0", "-o", "MaxRSS"});
  ASSERT_GE(rss.size(), 3u) << rss;
  EXPECT_EQ(rss.substr(rss.size() - 2), "K\n") << rss;
  EXPECT_GE(std::stoll(rss), 60 * 1024) << rss;
  // The batch step's own usage (the shell and srun) from its supervisor.
  std::string batch = Sacct({"-j", s + ".batch", "-o", "MaxRSS,TotalCPU"});
  ASSERT_NE(batch.find("K|"), std::string::npos) << batch;
  EXPECT_GE(std::stoll(batch), 1000) << batch;
  EXPECT_NE(batch.substr(batch.find('|') + 1), "\n") << batch;

  int64_t bad = Submit({"-o", "/dev/null", "--wrap", "exit 3"});
  EXPECT_EQ(WaitDone(bad), "FAILED");
  std::string b = std::to_string(bad);
  EXPECT_EQ(WaitSacct({"-j", b, "-o", "JobID,State,ExitCode"},
                      b + "|FAILED|3:0\n" + b + ".batch|FAILED|3:0\n"),
            b + "|FAILED|3:0\n" + b + ".batch|FAILED|3:0\n");

  int64_t run = Submit({"-o", "/dev/null", "--wrap", "sleep 300"});
  std::string r = std::to_string(run);
  EXPECT_EQ(WaitSacct({"-X", "-j", r, "-o", "State"}, "RUNNING\n"), "RUNNING\n");
  ASSERT_EQ(Run({"scancel", r}).exit_code, 0);
  EXPECT_EQ(WaitDone(run), "CANCELLED");
  std::string c = WaitSacct({"-X", "-j", r, "-o", "State,ExitCode"}, "CANCELLED by 0|0:0\n");
  EXPECT_EQ(c, "CANCELLED by 0|0:0\n");
  // The batch step's row is written after the job's: wait for it too.
  std::string cb = WaitSacct({"-j", r + ".batch", "-o", "State"}, "CANCELLED\n");
  EXPECT_EQ(cb, "CANCELLED\n");

  // Default columns and --json over the same jobs.
  auto plain = Run({"sacct", "-j", s});
  EXPECT_EQ(plain.out.substr(0, plain.out.find('\n') + 1),
            "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n");
  auto json = Run({"sacct", "--json", "-j", s + "," + b});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["jobs"].size(), 2u);
  EXPECT_EQ(doc["jobs"][0]["job_id"], id);
  EXPECT_EQ(doc["jobs"][0]["state"]["current"], "COMPLETED");
  EXPECT_EQ(doc["jobs"][0]["steps"].size(), 2u);
  EXPECT_EQ(doc["jobs"][1]["exit_code"]["return_code"], 3);
}

TEST_F(Accounting, RequeuedAttemptsAndControllerCrash) {
  int64_t id = Submit({"-o", "/dev/null", "--wrap", "sleep 300"});
  std::string s = std::to_string(id);
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  ASSERT_EQ(Run({"scontrol", "requeue", s}).exit_code, 0);
  ASSERT_EQ(WaitState(id, {"RUNNING"}, 40'000), "RUNNING");
  // Restarts is shown on job rows only.
  std::string want = s + "|REQUEUED|0\n" + s + ".batch|CANCELLED|\n" + s + "|RUNNING|1\n" + s +
                     ".batch|RUNNING|\n";
  EXPECT_EQ(WaitSacct({"-D", "-j", s, "-o", "JobID,State,Restarts"}, want), want);
  EXPECT_EQ(Sacct({"-j", s, "-X", "-o", "JobID,State"}), s + "|RUNNING\n");  // latest only
  // A crash of the controller loses no record.
  cluster_->KillController(SIGKILL);
  ASSERT_TRUE(cluster_->StartController().ok());
  EXPECT_EQ(WaitSacct({"-D", "-j", s, "-o", "JobID,State,Restarts"}, want), want);
  ASSERT_EQ(Run({"scancel", s}).exit_code, 0);
  EXPECT_EQ(WaitDone(id), "CANCELLED");
}

TEST_F(Accounting, SreportGpuHoursMatchGpusTimesElapsed) {
  int64_t id = Submit({"--gres=gpu:2", "-o", "/dev/null", "--wrap", "sleep 3"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string s = std::to_string(id);
  std::string elapsed = WaitSacct({"-X", "-j", s, "-o", "State"}, "COMPLETED\n");
  ASSERT_EQ(elapsed, "COMPLETED\n");
  int64_t secs = std::stoll(Sacct({"-X", "-j", s, "-o", "ElapsedRaw"}));
  EXPECT_GE(secs, 3);
  EXPECT_EQ(Sacct({"-X", "-j", s, "-o", "AllocTRES"}).find("gres/gpu=2") != std::string::npos,
            true);
  auto r = Run({"sreport", "-P", "-n", "-t", "seconds", "--tres=gres/gpu", "user", "top",
                "start=now-1hours", "end=now+1hours"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Cluster|TRES Name|Login|Proper Name|Account|Used|Energy
  EXPECT_NE(r.out.find("|gres/gpu|root|root|"), std::string::npos) << r.out;
  size_t used_at = r.out.rfind('|', r.out.rfind('|') - 1);
  int64_t used = std::stoll(r.out.substr(used_at + 1));
  EXPECT_EQ(used, 2 * secs) << r.out;
  auto u = Run({"sreport", "-P", "-n", "-t", "seconds", "--tres=gres/gpu", "cluster", "utilization",
                "start=now-1hours", "end=now+1hours"});
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_NE(u.out.find("|gres/gpu|" + std::to_string(2 * secs) + "|"), std::string::npos) << u.out;
}

// The controller with accounting_storage/pgsql against a real PostgreSQL server.
class AccountingPg : public Accounting {
 protected:
  void SetUp() override {
    Status st = pg_.Start();
    if (!st.ok()) GTEST_SKIP() << "PostgreSQL server unavailable: " << st.message();
    Accounting::SetUp();
  }
  void TearDown() override {
    Accounting::TearDown();
    pg_.Stop();
  }
  LocalClusterOptions Options() override {
    LocalClusterOptions o = Accounting::Options();
    acct::AcctConfig c = pg_.Config();
    o.extra_config_lines = {"AccountingStorageType=accounting_storage/pgsql",
                            "AccountingStorageHost=" + c.host,
                            "AccountingStoragePort=" + std::to_string(c.port),
                            "AccountingStorageUser=" + c.user, "AccountingStorageLoc=" + c.db};
    return o;
  }
  acct::PgTestServer pg_;
};

TEST_F(AccountingPg, RecordsLandInPostgresAndSurviveRestart) {
  int64_t id = Submit({"-J", "pgjob", "-o", "/dev/null", "--wrap", "exit 0"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string s = std::to_string(id);
  std::string want = s + "|pgjob|COMPLETED|0:0\n" + s + ".batch|batch|COMPLETED|0:0\n";
  EXPECT_EQ(WaitSacct({"-j", s, "-o", "JobID,JobName,State,ExitCode"}, want), want);
  // The rows are in PostgreSQL itself.
  bool found = false;
  for (int i = 0; i < 100 && !found; ++i) {
    auto store = acct::OpenAcctStore(pg_.Config());
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto d = (*store)->Query({.job_ids = {id}});
    ASSERT_TRUE(d.ok()) << d.status().message();
    found = d->jobs.size() == 1 && d->jobs[0].state == 4 /*COMPLETED*/ && d->steps.size() == 1;
    if (!found) usleep(100'000);
  }
  EXPECT_TRUE(found);
  cluster_->KillController(SIGTERM);
  ASSERT_TRUE(cluster_->StartController().ok());
  EXPECT_EQ(WaitSacct({"-j", s, "-o", "JobID,JobName,State,ExitCode"}, want), want);
}

}  // namespace
}  // namespace sluice::testing
