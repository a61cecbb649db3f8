// The same cases against both backends: SQLite (a temp file) and PostgreSQL (a real
// server started by PgTestServer; skipped with the reason when it cannot start).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "acct/acct_store.h"
#include "acct/pg_test_server.h"

namespace sluice::acct {
namespace {

class PgEnv : public ::testing::Environment {
 public:
  void TearDown() override { server.Stop(); }
  static PgTestServer server;
  static Status started;
  static bool tried;
};
PgTestServer PgEnv::server;
Status PgEnv::started = Status::Ok();
bool PgEnv::tried = false;

class AcctStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      dir_ = std::filesystem::temp_directory_path() /
             ("acct-test-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
      std::filesystem::remove_all(dir_);
      std::filesystem::create_directories(dir_);
      cfg_.type = "accounting_storage/sqlite";
      cfg_.sqlite_path = dir_ + "/acct.db";
    } else {
      if (!PgEnv::tried) {
        PgEnv::tried = true;
        PgEnv::started = PgEnv::server.Start();
      }
      if (!PgEnv::started.ok()) {
        GTEST_SKIP() << "PostgreSQL test server unavailable: " << PgEnv::started.message();
      }
      ASSERT_TRUE(PgEnv::server.Reset().ok());
      cfg_ = PgEnv::server.Config();
    }
    auto s = OpenAcctStore(cfg_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
  }
  // One statement straight on the backend's database (outside AcctStore).
  Status RawExec(const std::string& sql) {
    if (GetParam() != "sqlite") return PgEnv::server.ExecSql(sql);
    sqlite3* db = nullptr;
    if (sqlite3_open(cfg_.sqlite_path.c_str(), &db) != SQLITE_OK) {
      sqlite3_close(db);
      return Unavailable("cannot open " + cfg_.sqlite_path);
    }
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    return rc == SQLITE_OK ? Status::Ok() : Unavailable(msg);
  }
  void TearDown() override {
    store_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  static AcctJobRecord Job(int64_t id, int attempt) {
    AcctJobRecord j;
    j.job_id = id;
    j.attempt = attempt;
    j.name = "train's \"job\"";  // quoting survives both backends
    j.uid = 1000;
    j.user = "alice";
    j.account = "physics";
    j.partition = "gpu";
    j.state = 2;
    j.submit_time = 1000;
    j.start_time = 1010;
    j.nodes = "node[01-02]";
    j.alloc_tres = "billing=4,cpu=4,gres/gpu=2,mem=4000M,node=2";
    return j;
  }
  std::string dir_;
  AcctConfig cfg_;
  std::unique_ptr<AcctStore> store_;
};

TEST_P(AcctStoreTest, UpsertIsIdempotentAndReadsBack) {
  AcctJobRecord j = Job(7, 0);
  ASSERT_TRUE(store_->Apply({j, j}).ok());
  j.state = 4;
  j.end_time = 1100;
  ASSERT_TRUE(store_->Apply({j}).ok());
  auto d = store_->Query({});
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->jobs.size(), 1u);
  EXPECT_EQ(d->jobs[0], j);
  EXPECT_EQ(d->jobs[0].cancelled_by, -1);  // not cancelled: unknown
}

TEST_P(AcctStoreTest, CancellerRoundTrips) {
  AcctJobRecord by_root = Job(11, 0), by_owner = Job(12, 0);
  by_root.state = by_owner.state = 6;  // JOB_CANCELLED
  by_root.cancelled_by = 0;            // root, not the owner (1000)
  by_owner.cancelled_by = 1000;
  ASSERT_TRUE(store_->Apply({by_root, by_owner}).ok());
  auto d = store_->Query({});
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->jobs.size(), 2u);
  EXPECT_EQ(d->jobs[0].cancelled_by, 0);
  EXPECT_EQ(d->jobs[1].cancelled_by, 1000);
  EXPECT_EQ(d->jobs[0], by_root);
}

// A database written before the cancelled_by column: opening it adds the column, old
// rows read back as unknown (-1), new rows keep their canceller.
TEST_P(AcctStoreTest, MigratesJobsTableWithoutCanceller) {
  store_.reset();
  std::vector<std::string> sql = {
      "DROP TABLE IF EXISTS acct_jobs",
      "CREATE TABLE acct_jobs (job_id BIGINT NOT NULL, attempt BIGINT NOT NULL, "
      "array_job_id BIGINT NOT NULL, array_task_id BIGINT NOT NULL, name TEXT NOT NULL, "
      "uid BIGINT NOT NULL, user_name TEXT NOT NULL, gid BIGINT NOT NULL, "
      "group_name TEXT NOT NULL, account TEXT NOT NULL, partition_name TEXT NOT NULL, "
      "qos TEXT NOT NULL, state BIGINT NOT NULL, exit_code BIGINT NOT NULL, "
      "term_signal BIGINT NOT NULL, submit_time BIGINT NOT NULL, eligible_time BIGINT NOT NULL, "
      "start_time BIGINT NOT NULL, end_time BIGINT NOT NULL, time_limit_min BIGINT NOT NULL, "
      "nodes TEXT NOT NULL, nnodes BIGINT NOT NULL, alloc_cpus BIGINT NOT NULL, "
      "req_cpus BIGINT NOT NULL, req_mem_mb BIGINT NOT NULL, alloc_gpus BIGINT NOT NULL, "
      "req_tres TEXT NOT NULL, alloc_tres TEXT NOT NULL, work_dir TEXT NOT NULL, "
      "PRIMARY KEY (job_id, attempt))",
      "INSERT INTO acct_jobs VALUES (5, 0, 0, 0, 'old', 1000, 'alice', 0, '', 'physics', "
      "'gpu', 'normal', 6, 0, 0, 1000, 1000, 1010, 1100, 60, 'node01', 1, 2, 2, 0, 0, '', "
      "'', '/tmp')"};
  for (const auto& q : sql) {
    Status st = RawExec(q);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  auto s = OpenAcctStore(cfg_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  AcctJobRecord fresh = Job(6, 0);
  fresh.state = 6;
  fresh.cancelled_by = 0;
  ASSERT_TRUE((*s)->Apply({fresh}).ok());
  auto d = (*s)->Query({});
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->jobs.size(), 2u);
  EXPECT_EQ(d->jobs[0].name, "old");
  EXPECT_EQ(d->jobs[0].state, 6);
  EXPECT_EQ(d->jobs[0].cancelled_by, -1);
  EXPECT_EQ(d->jobs[1], fresh);
  s->reset();
  auto again = OpenAcctStore(cfg_);  // migrating twice is harmless
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto d2 = (*again)->Query({});
  ASSERT_TRUE(d2.ok());
  EXPECT_EQ(d2->jobs.size(), 2u);
}

// A database written before the steps' GPU usage columns: opening it adds them, old
// rows read back with none.
TEST_P(AcctStoreTest, MigratesStepsTableWithoutGpuUsage) {
  store_.reset();
  std::vector<std::string> sql = {
      "DROP TABLE IF EXISTS acct_steps",
      "CREATE TABLE acct_steps (job_id BIGINT NOT NULL, attempt BIGINT NOT NULL, "
      "step_id BIGINT NOT NULL, name TEXT NOT NULL, nodes TEXT NOT NULL, nnodes BIGINT NOT NULL, "
      "ntasks BIGINT NOT NULL, alloc_cpus BIGINT NOT NULL, state BIGINT NOT NULL, "
      "exit_code BIGINT NOT NULL, term_signal BIGINT NOT NULL, start_time BIGINT NOT NULL, "
      "end_time BIGINT NOT NULL, max_rss_kb BIGINT NOT NULL, total_cpu_us BIGINT NOT NULL, "
      "alloc_tres TEXT NOT NULL, PRIMARY KEY (job_id, attempt, step_id))",
      "INSERT INTO acct_steps VALUES (7, 0, 0, 'old', 'node01', 1, 1, 2, 3, 0, 0, 1000, 1100, "
      "10, 20, 'cpu=2')"};
  for (const auto& q : sql) {
    Status st = RawExec(q);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  auto s = OpenAcctStore(cfg_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE((*s)->Apply({Job(7, 0)}).ok());
  auto d = (*s)->Query({});
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->steps.size(), 1u);
  EXPECT_EQ(d->steps[0].name, "old");
  EXPECT_EQ(d->steps[0].tres_usage_in_ave, "");
}

TEST_P(AcctStoreTest, StepsAreKeyedByAttemptAndStep) {
  AcctStepRecord b{.job_id = 7,
                   .attempt = 0,
                   .step_id = kBatchStep,
                   .name = "batch",
                   .nodes = "node01",
                   .nnodes = 1,
                   .ntasks = 1,
                   .alloc_cpus = 2,
                   .state = 2,
                   .start_time = 1010,
                   .max_rss_kb = 2048,
                   .total_cpu_us = 1500000,
                   .tres_usage_in_ave = "gres/gpumem=512M,gres/gpuutil=40",
                   .tres_usage_in_max = "gres/gpumem=1024M,gres/gpuutil=95"};
  AcctStepRecord s0 = b;
  s0.step_id = 0;
  s0.name = "python";
  ASSERT_TRUE(store_->Apply({Job(7, 0), s0, b, b}).ok());
  auto d = store_->Query({});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->steps.size(), 2u);
  EXPECT_EQ(d->steps[0], b);  // batch sorts first
  EXPECT_EQ(d->steps[1], s0);
}

TEST_P(AcctStoreTest, CloseAttemptsMarksRequeuedAndCancelsSteps) {
  AcctStepRecord b{.job_id = 9,
                   .attempt = 0,
                   .step_id = kBatchStep,
                   .name = "batch",
                   .state = 2,
                   .start_time = 1010};
  AcctJobRecord next = Job(9, 1);
  next.state = 1;
  next.start_time = 0;
  ASSERT_TRUE(store_->Apply({Job(9, 0), b, next, AcctCloseAttempts{9, 1, 1050}}).ok());
  // Replaying is harmless.
  ASSERT_TRUE(store_->Apply({AcctCloseAttempts{9, 1, 1050}}).ok());
  auto d = store_->Query({});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->jobs.size(), 2u);
  EXPECT_EQ(d->jobs[0].state, kStateRequeued);
  EXPECT_EQ(d->jobs[0].end_time, 1050);
  EXPECT_EQ(d->jobs[0].start_time, 1010);
  EXPECT_EQ(d->jobs[1].state, 1);
  ASSERT_EQ(d->steps.size(), 1u);
  EXPECT_EQ(d->steps[0].state, 6);
  EXPECT_EQ(d->steps[0].term_signal, 15);
  EXPECT_EQ(d->steps[0].end_time, 1050);
}

TEST_P(AcctStoreTest, WindowAndIdSelection) {
  AcctJobRecord a = Job(1, 0), b = Job(2, 0), c = Job(3, 0);
  a.end_time = 1100;     // ended before the window
  b.submit_time = 5000;  // submitted after it
  c.end_time = 2500;     // overlaps
  ASSERT_TRUE(store_->Apply({a, b, c}).ok());
  auto d = store_->Query({.start = 2000, .end = 3000});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->jobs.size(), 1u);
  EXPECT_EQ(d->jobs[0].job_id, 3);
  d = store_->Query({.job_ids = {1, 2}});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->jobs.size(), 2u);
}

TEST_P(AcctStoreTest, UserAccountAndStateFiltersReturnEveryAttemptOfAJob) {
  AcctJobRecord mine = Job(1, 0), other = Job(2, 0), requeued = Job(3, 0), rerun = Job(3, 1);
  other.uid = 1001;
  other.account = "chem's";  // a quote, bound as a parameter
  requeued.state = kStateRequeued;
  rerun.account = "bio";  // the account changed between attempts
  ASSERT_TRUE(store_->Apply({mine, other, requeued, rerun}).ok());
  auto ids = [&](const AcctWindow& w) {
    std::vector<std::pair<int64_t, int>> out;
    auto d = store_->Query(w);
    EXPECT_TRUE(d.ok()) << d.status().message();
    if (d.ok()) {
      for (const AcctJobRecord& j : d->jobs) out.push_back({j.job_id, j.attempt});
    }
    return out;
  };
  using V = std::vector<std::pair<int64_t, int>>;
  EXPECT_EQ(ids({.uids = {1000}}), (V{{1, 0}, {3, 0}, {3, 1}}));
  EXPECT_EQ(ids({.uids = {1001, 7}}), (V{{2, 0}}));
  EXPECT_EQ(ids({.accounts = {"chem's"}}), (V{{2, 0}}));
  EXPECT_EQ(ids({.accounts = {"bio"}}), (V{{3, 0}, {3, 1}}));  // any attempt: all of them
  EXPECT_EQ(ids({.accounts = {"nosuch"}}), V{});
  EXPECT_EQ(ids({.states = {kStateRequeued}}), (V{{3, 0}, {3, 1}}));
  EXPECT_EQ(ids({.uids = {1000}, .accounts = {"physics"}, .states = {2}}),
            (V{{1, 0}, {3, 0}, {3, 1}}));
  EXPECT_EQ(ids({.job_ids = {2, 3}, .uids = {1000}}), (V{{3, 0}, {3, 1}}));
}

TEST_P(AcctStoreTest, SurvivesReopen) {
  ASSERT_TRUE(store_->Apply({Job(4, 0)}).ok());
  store_.reset();
  auto s = OpenAcctStore(cfg_);
  ASSERT_TRUE(s.ok());
  auto d = (*s)->Query({});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->jobs.size(), 1u);
  EXPECT_EQ(d->jobs[0], Job(4, 0));
}

TEST_P(AcctStoreTest, NodeEventsOpenCloseAndReplay) {
  std::vector<AcctOp> ops = {
      NodeEventSet{"node01", 100, "DOWN", "x", 4, 2},
      NodeEventSet{"node01", 150, "DOWN", "x", 4, 2},  // same state: no new event
      NodeEventSet{"node02", 120, "DRAIN", "it's \"bad\"", 8, 0},
      NodeEventSet{"node01", 200, "", "", 4, 2},                    // back up: closed at 200
      NodeEventSet{"node02", 300, "DRAIN", "other $2 $10", 8, 0}};  // new reason: new event
  ASSERT_TRUE(store_->Apply(ops).ok());
  ASSERT_TRUE(store_->Apply(ops).ok());  // a replayed batch changes nothing
  auto ev = store_->QueryNodeEvents(0, 0);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  std::vector<NodeEventRecord> want = {
      {"node01", 100, 200, "DOWN", "x", 4, 2},
      {"node02", 120, 300, "DRAIN", "it's \"bad\"", 8, 0},
      {"node02", 300, 0, "DRAIN", "other $2 $10", 8, 0}};  // "$2" is not a parameter
  EXPECT_EQ(*ev, want);
  // Window selection: [210, 250) sees only node02's first event; an open event
  // overlaps every later window.
  ev = store_->QueryNodeEvents(210, 250);
  ASSERT_TRUE(ev.ok());
  ASSERT_EQ(ev->size(), 1u);
  EXPECT_EQ((*ev)[0].start_time, 120);
  ev = store_->QueryNodeEvents(5000, 6000);
  ASSERT_TRUE(ev.ok());
  ASSERT_EQ(ev->size(), 1u);
  EXPECT_EQ((*ev)[0].end_time, 0);
}

TEST_P(AcctStoreTest, NodeEventsResyncAfterRestart) {
  ASSERT_TRUE(store_
                  ->Apply({NodeEventSet{"node01", 100, "DOWN", "Not responding", 4, 0},
                           NodeEventSet{"node02", 100, "DRAIN", "hc", 4, 0}})
                  .ok());
  store_.reset();  // controller restart: a new store, the controller re-posts what it sees
  auto s = OpenAcctStore(cfg_);
  ASSERT_TRUE(s.ok());
  store_ = std::move(s).value();
  ASSERT_TRUE(store_
                  ->Apply({NodeEventSet{"node01", 500, "", "", 4, 0},            // up again
                           NodeEventSet{"node02", 500, "DRAIN", "hc", 4, 0},     // still
                           NodeEventSet{"node03", 500, "DOWN", "admin", 4, 0}})  // lost open
                  .ok());
  auto ev = store_->QueryNodeEvents(0, 0);
  ASSERT_TRUE(ev.ok());
  std::vector<NodeEventRecord> want = {{"node01", 100, 500, "DOWN", "Not responding", 4, 0},
                                       {"node02", 100, 0, "DRAIN", "hc", 4, 0},
                                       {"node03", 500, 0, "DOWN", "admin", 4, 0}};
  EXPECT_EQ(*ev, want);
}

INSTANTIATE_TEST_SUITE_P(Backends, AcctStoreTest, ::testing::Values("sqlite", "pgsql"),
                         [](const auto& info) { return info.param; });

TEST(AcctStoreOpen, UnknownTypeIsAnError) {
  AcctConfig c;
  c.type = "accounting_storage/mysql";
  auto s = OpenAcctStore(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("accounting_storage/mysql"), std::string::npos);
}

}  // namespace
}  // namespace sluice::acct
