// High availability: two controllers on one PostgreSQL database (StateStorageType=
// state/pgsql). One leads, the other stands by; kill -9 the leader and the standby takes
// over, with no acknowledged job lost and none run twice; a leader that was paused past
// its lease (cut off, not knowing it) is fenced and steps down without writing anything.
#include <signal.h>
#include <unistd.h>

#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "acct/pg_test_server.h"
#include "client/connect.h"
#include "cluster_fixture.h"
#include "common/clock.h"
#include "storage/pg_lease.h"
#include "storage/pg_server.h"

namespace sluice::testing {
namespace {

class HighAvailability : public ClusterTest {
 protected:
  void SetUp() override {
    if (Status st = pg_.Start(); !st.ok()) GTEST_SKIP() << "no PostgreSQL server: " << st.message();
    ClusterTest::SetUp();
  }
  void TearDown() override {
    ClusterTest::TearDown();
    pg_.Stop();
  }
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.controllers = 2;
    o.extra_config_lines = pg_.StateStorageLines();
    o.extra_config_lines.push_back("SlurmctldTimeout=3");
    return o;
  }
  storage::LeaseState Lease() {
    auto lease = storage::PgLease::Open(pg_.conn_string());
    EXPECT_TRUE(lease.ok()) << lease.status().message();
    if (!lease.ok()) return {};
    auto cur = (*lease)->Current();
    EXPECT_TRUE(cur.ok()) << cur.status().message();
    return cur.ok() ? *cur : storage::LeaseState{};
  }
  // Index of the leading controller (-1 when none holds a live lease).
  int Leader() { return cluster_->LeadingController(); }
  // Polls until a controller other than `old` leads; returns its index.
  int WaitNewLeader(int old, int timeout_ms) {
    int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
    while (RealClock::MonotonicMs() < deadline) {
      int k = Leader();
      if (k >= 0 && k != old) return k;
      usleep(50'000);
    }
    return -1;
  }
  // Hands leadership to controller k (a clean stop releases the lease), the other standing by.
  void MakeLeader(int k) {
    if (Leader() == k) return;
    cluster_->KillControllerAt(1 - k, SIGTERM);
    ASSERT_EQ(WaitNewLeader(1 - k, 10'000), k);
    ASSERT_TRUE(cluster_->StartControllerAt(1 - k).ok());
    ASSERT_EQ(Run({"squeue", "-h"}).exit_code, 0);  // commands wait out the takeover
  }
  // A copy of the config that names only controller k (to ask it directly).
  std::string OnlyController(int k) {
    std::string conf = ReadFile(cluster_->conf_path());
    std::string out;
    std::stringstream in(conf);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("SlurmctldHost=", 0) == 0 &&
          line.find(cluster_->ControllerName(k) + "(") == std::string::npos) {
        continue;
      }
      out += line + "\n";
    }
    std::string path = work_dir() + "/only-" + cluster_->ControllerName(k) + ".conf";
    WriteFile("only-" + cluster_->ControllerName(k) + ".conf", out);
    return path;
  }
  // Each job of runs.log started and ended exactly once.
  void ExpectEachRanOnce(const std::vector<int64_t>& ids) {
    std::map<std::string, int> starts, ends;
    std::stringstream log(ReadFile(work_dir() + "/runs.log"));
    std::string what, id;
    while (log >> what >> id) (what == "start" ? starts : ends)[id]++;
    for (int64_t job : ids) {
      EXPECT_EQ(starts[std::to_string(job)], 1) << "job " << job << " starts";
      EXPECT_EQ(ends[std::to_string(job)], 1) << "job " << job << " ends";
    }
  }
  std::vector<int64_t> SubmitLogged(int n, int sleep_s) {
    std::vector<int64_t> ids;
    for (int i = 0; i < n; ++i) {
      ids.push_back(Submit({"-o", "/dev/null", "--wrap",
                            "echo start $SLURM_JOB_ID >> runs.log; sleep " +
                                std::to_string(sleep_s) + "; echo end $SLURM_JOB_ID >> runs.log"}));
    }
    return ids;
  }
  acct::PgTestServer pg_;
};

TEST_F(HighAvailability, OneLeadsTheOtherStandsByAndPingShowsBoth) {
  int leader = Leader();
  ASSERT_GE(leader, 0);
  const storage::LeaseState l = Lease();
  EXPECT_GE(l.epoch, 1);
  const std::string port = cluster_->CtldAddress().substr(cluster_->CtldAddress().rfind(':') + 1);
  EXPECT_EQ(l.address, "127.0.0." + std::to_string(leader + 1) + ":" + port);
  const int standby = 1 - leader;
  EXPECT_GT(cluster_->ControllerPid(standby), 0) << "the standby runs";
  // Commands find the leader, whichever SlurmctldHost it is.
  int64_t id = Submit({"-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string log = ReadFile(cluster_->ControllerLogPath(standby));
  EXPECT_NE(log.find("standing by controller=" + cluster_->ControllerName(standby)),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("listening cluster="), std::string::npos) << log;
  RunResult ping = Run({"scontrol", "ping"});
  EXPECT_EQ(ping.exit_code, 0) << ping.err;
  EXPECT_EQ(ping.out, "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup) at ctl2 is UP\n");
  // The standby answers, and says what it is.
  RunOptions only;
  only.extra_env = {"SLUICE_CONF=" + OnlyController(standby)};
  only.cwd = work_dir();
  RunResult direct = RunCommand({cluster_->BinPath("sbatch"), "--wrap", "true"}, only);
  EXPECT_NE(direct.exit_code, 0);
  EXPECT_NE(direct.err.find("Unable to contact slurm controller"), std::string::npos) << direct.err;
  cluster_->KillControllerAt(standby, SIGKILL);
  ping = Run({"scontrol", "ping"});
  EXPECT_EQ(ping.exit_code, 1);
  EXPECT_NE(ping.out.find("at " + cluster_->ControllerName(standby) + " is DOWN"),
            std::string::npos)
      << ping.out;
}

TEST_F(HighAvailability, TakeoverHandsOverToTheStandby) {
  MakeLeader(0);
  std::vector<int64_t> ids = SubmitLogged(4, 3);
  const int64_t epoch = Lease().epoch;
  RunResult r = Run({"scontrol", "takeover"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(WaitNewLeader(0, 10'000), 1);
  EXPECT_EQ(Lease().epoch, epoch + 1);
  for (int i = 0; i < 50 && cluster_->ControllerPid(0) > 0; ++i) usleep(100'000);
  EXPECT_EQ(cluster_->ControllerPid(0), 0) << "the old leader stops";
  std::string log = ReadFile(cluster_->state_dir() + "/log/sluicectld.log");
  EXPECT_NE(log.find("released the controller lease"), std::string::npos) << log;
  ids.push_back(
      Submit({"-o", "/dev/null", "--wrap",
              "echo start $SLURM_JOB_ID >> runs.log; echo end $SLURM_JOB_ID >> runs.log"}));
  for (int64_t id : ids) EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED") << "job " << id;
  ExpectEachRanOnce(ids);
}

TEST_F(HighAvailability, AStandbyLeadsWithTheConfigurationTheLeaderWasLastGiven) {
  MakeLeader(0);
  const std::string next =
      ReadFile(cluster_->conf_path()) + "PartitionName=debug Nodes=node01 MaxTime=5 State=UP\n";
  WriteFile("next.conf", next);
  std::filesystem::rename(work_dir() + "/next.conf", cluster_->conf_path());
  RunResult r = Run({"scontrol", "reconfigure"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "reconfigured partition debug added\n");
  cluster_->KillControllerAt(0, SIGKILL);
  ASSERT_EQ(WaitNewLeader(0, 30'000), 1);
  EXPECT_EQ(WaitDone(Submit({"-p", "debug", "-o", "/dev/null", "--wrap", "true"}), 60'000),
            "COMPLETED");
}

TEST_F(HighAvailability, LeaderKill9StandbyTakesOverNoJobLostOrRunTwice) {
  const int old = Leader();
  ASSERT_GE(old, 0);
  const int64_t old_epoch = Lease().epoch;
  std::vector<int64_t> ids = SubmitLogged(20, 3);
  // Some are running on the nodes when the leader dies.
  for (int i = 0; i < 200; ++i) {
    if (Run({"squeue", "-h", "-t", "R", "-o", "%i"}).out.size() > 0) break;
    usleep(20'000);
  }
  const int64_t killed = RealClock::MonotonicMs();
  cluster_->KillControllerAt(old, SIGKILL);
  const int now = WaitNewLeader(old, 30'000);
  ASSERT_EQ(now, 1 - old) << "no standby took over";
  // A submission succeeds once the new leader serves.
  int64_t after = 0;
  while (after == 0 && RealClock::MonotonicMs() - killed < 30'000) {
    RunResult r = Run({"sbatch", "--parsable", "-o", "/dev/null", "--wrap",
                       "echo start $SLURM_JOB_ID >> runs.log; echo end $SLURM_JOB_ID >> runs.log"});
    if (r.exit_code == 0)
      after = std::atoll(r.out.c_str());
    else
      usleep(100'000);
  }
  ASSERT_GT(after, 0);
  const int64_t took_ms = RealClock::MonotonicMs() - killed;
  std::cerr << "failover: kill -9 to the first acknowledged submission " << took_ms << " ms\n";
  EXPECT_LT(took_ms, 15'000);
  EXPECT_GT(Lease().epoch, old_epoch);
  ids.push_back(after);
  EXPECT_GT(after, ids[ids.size() - 2]) << "a job id was handed out twice";
  for (int64_t id : ids) EXPECT_EQ(WaitDone(id, 120'000), "COMPLETED") << "job " << id;
  ExpectEachRanOnce(ids);
}

TEST_F(HighAvailability, APausedLeaderIsFencedAndStepsDownWritingNothing) {
  // The primary leads and is paused: the hardest case for clients and agents, which try it
  // first.
  MakeLeader(0);
  const int old = Leader();
  ASSERT_EQ(old, 0);
  const pid_t old_pid = cluster_->ControllerPid(old);
  ASSERT_GT(old_pid, 0);
  std::vector<int64_t> ids = SubmitLogged(12, 2);
  // Paused with work in hand: a process stopped (or a machine cut off) does not know it
  // lost its lease.
  ASSERT_EQ(kill(old_pid, SIGSTOP), 0);
  const int64_t paused = RealClock::MonotonicMs();
  const int now = WaitNewLeader(old, 30'000);
  ASSERT_EQ(now, 1 - old);
  std::vector<int64_t> more;
  int tries = 0;
  for (int i = 0; i < 60 && more.empty(); ++i, ++tries) {
    RunResult r = Run({"sbatch", "--parsable", "-o", "/dev/null", "--wrap",
                       "echo start $SLURM_JOB_ID >> runs.log; echo end $SLURM_JOB_ID >> runs.log"},
                      {.timeout_ms = 5000});
    if (r.exit_code == 0)
      more.push_back(std::atoll(r.out.c_str()));
    else
      usleep(200'000);
  }
  ASSERT_EQ(more.size(), 1u);
  std::cerr << "paused leader: submitted through the new leader after " << tries << " tries, "
            << RealClock::MonotonicMs() - paused << " ms\n";
  // The old leader wakes up: it must step down without committing or launching anything.
  ASSERT_EQ(kill(old_pid, SIGCONT), 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = !ProcessAlive(old_pid);
    if (!gone) usleep(100'000);
  }
  EXPECT_TRUE(gone) << "the fenced leader did not step down";
  std::string log = ReadFile(cluster_->ControllerLogPath(old));
  EXPECT_NE(log.find("lost the controller lease"), std::string::npos) << log;
  ids.insert(ids.end(), more.begin(), more.end());
  for (int64_t id : ids) EXPECT_EQ(WaitDone(id, 120'000), "COMPLETED") << "job " << id;
  ExpectEachRanOnce(ids);
  // Restarted, it stands by.
  ASSERT_TRUE(cluster_->StartControllerAt(old).ok());
  usleep(1'500'000);
  EXPECT_EQ(Leader(), now);
  EXPECT_GT(cluster_->ControllerPid(old), 0);
}

TEST_F(HighAvailability, CutDatabaseConnectionsAreOpenedAgainAndNothingRunsTwice) {
  const int leader = Leader();
  ASSERT_GE(leader, 0);
  std::vector<int64_t> ids = SubmitLogged(6, 2);
  // Every session of both controllers is cut (a database restart, a network blip).
  for (int cut = 0; cut < 3; ++cut) {
    ASSERT_TRUE(pg_.ExecSql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'")
                    .ok());
    // Submissions go on: one that met the cut connection may fail (not acknowledged).
    for (int i = 0; i < 20; ++i) {
      RunResult r = Run({"sbatch", "--parsable", "-o", "/dev/null", "--wrap",
                         "echo start $SLURM_JOB_ID >> runs.log; sleep 1; echo end "
                         "$SLURM_JOB_ID >> runs.log"});
      if (r.exit_code == 0) {
        ids.push_back(std::atoll(r.out.c_str()));
        break;
      }
      usleep(100'000);
    }
    usleep(300'000);
  }
  EXPECT_EQ(ids.size(), 9u);
  for (int64_t id : ids) EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED") << "job " << id;
  ExpectEachRanOnce(ids);
  // A cut shorter than the lease costs no failover.
  EXPECT_EQ(Leader(), leader);
  EXPECT_GT(cluster_->ControllerPid(leader), 0);
}

// kill -9 of the leader while clients submit as fast as they can (a few hundred jobs/s):
// every submission that was acknowledged exists afterwards, under the id it was given,
// and runs exactly once; no id is given twice.
TEST_F(HighAvailability, LeaderKill9UnderSubmissionLoadLosesNoAcknowledgedJob) {
  const int old = Leader();
  ASSERT_GE(old, 0);
  ConnectOptions copts;
  copts.config_path = cluster_->conf_path();
  auto conn = ConnectToController(copts);
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  SubmitRequest req;
  JobSpec* spec = req.mutable_spec();
  spec->set_name("load");
  spec->set_script(
      "#!/bin/sh\necho start $SLURM_JOB_ID >> runs.log\n"
      "echo end $SLURM_JOB_ID >> runs.log\n");
  spec->set_work_dir(work_dir());
  spec->set_stdout_pattern("/dev/null");
  spec->add_env("PATH=/usr/bin:/bin");
  std::mutex mu;
  std::vector<int64_t> acked;
  std::atomic<bool> stop{false};
  std::vector<std::string> refusals;  // submissions not acknowledged: why
  std::vector<std::thread> clients;
  const int64_t t0 = RealClock::MonotonicMs();
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&] {
      while (!stop) {
        auto rep = conn->client->SubmitJob(req);
        std::lock_guard<std::mutex> l(mu);
        if (!rep.ok()) {
          refusals.push_back(rep.status().message());
          continue;
        }
        acked.push_back(rep->job_id());
      }
    });
  }
  auto acked_count = [&] {
    std::lock_guard<std::mutex> l(mu);
    return acked.size();
  };
  usleep(1'500'000);
  const size_t before_kill = acked_count();
  const double rate = before_kill * 1000.0 / (RealClock::MonotonicMs() - t0);
  cluster_->KillControllerAt(old, SIGKILL);
  ASSERT_EQ(WaitNewLeader(old, 30'000), 1 - old) << "no standby took over";
  // Submissions go on with the new leader.
  const size_t at_takeover = acked_count();
  for (int i = 0; i < 200 && acked_count() < at_takeover + 100; ++i) usleep(50'000);
  stop = true;
  for (auto& t : clients) t.join();
  std::cerr << "submitted " << acked.size() << " (" << before_kill << " before the kill, " << rate
            << "/s), " << refusals.size() << " not acknowledged\n";
  // Only calls cut off mid-way go unacknowledged (on the wire as the leader died, or as
  // the standby's server closed to make way for the leader's): none gave up on reaching
  // a controller while a standby took over.
  for (const std::string& why : refusals) {
    EXPECT_TRUE(why == kLostReply || why == "CANCELLED") << why;
  }
  EXPECT_GE(acked.size(), at_takeover + 100) << "the new leader took no submissions";
  std::set<int64_t> unique(acked.begin(), acked.end());
  EXPECT_EQ(unique.size(), acked.size()) << "a job id was given twice";
  // Every acknowledged job runs to its end, once.
  for (int64_t id : acked) EXPECT_EQ(WaitDone(id, 120'000), "COMPLETED") << "job " << id;
  ExpectEachRanOnce(acked);
}

// `sluice up --ha 2`: two controllers on a private PostgreSQL that the cluster starts
// itself; `sluice down` stops it and the next `up` finds the jobs again.
class UpHa : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 1;
    o.controllers = 2;  // no StateStorage lines: a private server
    o.extra_config_lines.push_back("SlurmctldTimeout=3");
    return o;
  }
  std::string PgDir() { return PrivatePgDir(cluster_->state_dir()); }
};

TEST_F(UpHa, TwoControllersOnAPrivatePostgresThatDownStopsAndUpFindsAgain) {
  const std::string pg = PgDir();
  ASSERT_FALSE(pg.empty());
  storage::PgServer server(pg);
  EXPECT_TRUE(server.Running());
  EXPECT_NE(ReadFile(cluster_->conf_path()).find("StateStorageHost=" + pg + "/sock\n"),
            std::string::npos);
  RunResult ping = Run({"scontrol", "ping"});
  EXPECT_EQ(ping.out, "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup) at ctl2 is UP\n");
  const int64_t first = Submit({"-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(WaitDone(first), "COMPLETED");
  cluster_->KillControllerAt(0, SIGKILL);  // ctl1 led: it started first
  const int64_t second = Submit({"-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(second, first + 1);
  EXPECT_EQ(WaitDone(second), "COMPLETED");
  EXPECT_EQ(Run({"scontrol", "ping"}).out,
            "Slurmctld(primary) at ctl1 is DOWN\nSlurmctld(backup) at ctl2 is UP\n");
  // sluicerestd follows the leader too.
  const std::string url = cluster_->RestUrl();
  std::string token = Run({"scontrol", "token"}).out;
  token = token.substr(token.find('=') + 1);
  token.pop_back();
  httplib::Client rest("127.0.0.1", std::stoi(url.substr(url.rfind(':') + 1)));
  rest.set_read_timeout(30);
  auto job = rest.Get("/slurm/v0.0.38/job/" + std::to_string(second),
                      httplib::Headers{{"X-SLURM-USER-TOKEN", token}});
  ASSERT_TRUE(job);
  EXPECT_EQ(job->status, 200) << job->body;
  EXPECT_NE(job->body.find("\"job_id\": " + std::to_string(second)), std::string::npos)
      << job->body;
  ASSERT_TRUE(cluster_->Down().ok());
  EXPECT_FALSE(server.Running());
  ASSERT_TRUE(cluster_->Up().ok());
  EXPECT_EQ(PgDir(), pg);
  EXPECT_EQ(State(first), "COMPLETED");
  EXPECT_EQ(State(second), "COMPLETED");
  // The command line: at most three controllers.
  RunResult four = Run({"sluice", "up", "--ha", "4", "--state-dir", work_dir() + "/four"});
  EXPECT_NE(four.exit_code, 0);
  EXPECT_NE(four.err.find("--ha"), std::string::npos) << four.err;
}

}  // namespace
}  // namespace sluice::testing
