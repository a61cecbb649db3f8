// The StateStore contract, checked against every implementation (SQLite, PostgreSQL,
// memory): what a controller writes is what it loads after a restart ("Reopen": a new
// SqliteStateStore on the same file, a new PgStateStore connection to the same database; the
// same MemoryStateStore object).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <google/protobuf/util/message_differencer.h>

#include "storage/memory_state_store.h"
#include "storage/pg_state_store.h"
#include "storage/pg_test_db.h"
#include "storage/sqlite_state_store.h"
#include "storage/state_dump.h"

namespace sluice::storage {
namespace {

enum class Engine { kSqlite, kPostgres, kMemory };

class StateStoreContract : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-store-contract-XXXXXX";
    dir_ = mkdtemp(tmpl);
    if (GetParam() == Engine::kPostgres) {
      std::string why;
      pg_ = SharedPgServer(&why);
      if (pg_ == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << why;
      ASSERT_TRUE(ResetControllerTables(pg_).ok());
    }
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    if (GetParam() == Engine::kMemory) {
      if (!store_) store_ = std::make_unique<MemoryStateStore>();
      return;
    }
    store_.reset();
    if (GetParam() == Engine::kPostgres) {
      auto s = PgStateStore::Open(pg_->conn_string());
      ASSERT_TRUE(s.ok()) << s.status().message();
      store_ = std::move(s).value();
      return;
    }
    auto s = SqliteStateStore::Open(dir_ + "/state.db");
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
  }
  LoadedState Load() {
    auto loaded = store_->LoadAll();
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return loaded.ok() ? std::move(loaded).value() : LoadedState{};
  }
  void WriteOk(const WriteBatch& b) {
    Status st = store_->Write(b);
    ASSERT_TRUE(st.ok()) << st.message();
  }

  static JobInfo Job(int64_t id, JobState state) {
    JobInfo j;
    j.set_job_id(id);
    j.set_state(state);
    j.mutable_spec()->set_name("job" + std::to_string(id));
    j.add_alloc()->set_node("node01");
    j.mutable_alloc(0)->add_gpu_ids(3);
    return j;
  }
  static JobScript Script(const std::string& body) {
    JobScript s;
    s.set_script("#!/bin/sh\n" + body + "\n");
    s.add_env("HOME=/home/alice");
    s.add_env("PATH=/usr/bin");
    return s;
  }

  std::string dir_;
  acct::PgTestServer* pg_ = nullptr;
  std::unique_ptr<StateStore> store_;
};

TEST_P(StateStoreContract, EmptyStoreStartsAtJobOne) {
  LoadedState st = Load();
  EXPECT_TRUE(st.jobs.empty());
  EXPECT_TRUE(st.nodes.empty());
  EXPECT_TRUE(st.reservations.empty());
  EXPECT_EQ(st.next_job_id, 1);
  EXPECT_FALSE(store_->LoadScript(1)->has_value());
  EXPECT_FALSE(store_->LoadHistoryJob(1)->has_value());
  EXPECT_TRUE(store_->LoadAssocRecords()->empty());
}

TEST_P(StateStoreContract, WritesSurviveReopen) {
  WriteBatch b;
  b.PutJob(Job(1, JOB_PENDING));
  b.PutJob(Job(2, JOB_RUNNING));
  b.PutNode({"node02", true, false, "maintenance", 100, 0});
  b.SetNextJobId(3);
  WriteOk(b);
  WriteBatch b2;
  b2.PutJob(Job(1, JOB_COMPLETED));  // update in a later batch
  WriteOk(b2);
  Reopen();
  LoadedState st = Load();
  ASSERT_EQ(st.jobs.size(), 2u);
  EXPECT_EQ(st.jobs[0].job_id(), 1);
  EXPECT_EQ(st.jobs[0].state(), JOB_COMPLETED);
  EXPECT_EQ(st.jobs[1].state(), JOB_RUNNING);
  EXPECT_EQ(st.jobs[1].alloc(0).gpu_ids(0), 3);
  EXPECT_EQ(st.jobs[1].spec().name(), "job2");
  ASSERT_EQ(st.nodes.size(), 1u);
  EXPECT_EQ(st.nodes[0], (NodeStateRecord{"node02", true, false, "maintenance", 100, 0}));
  EXPECT_EQ(st.next_job_id, 3);
}

TEST_P(StateStoreContract, JobsLoadInIdOrder) {
  WriteBatch b;
  for (int64_t id : {30, 4, 17}) b.PutJob(Job(id, JOB_PENDING));
  WriteOk(b);
  LoadedState st = Load();
  ASSERT_EQ(st.jobs.size(), 3u);
  EXPECT_EQ(st.jobs[0].job_id(), 4);
  EXPECT_EQ(st.jobs[1].job_id(), 17);
  EXPECT_EQ(st.jobs[2].job_id(), 30);
}

TEST_P(StateStoreContract, NextIdNeverBelowExistingJobs) {
  WriteBatch b;
  b.PutJob(Job(41, JOB_PENDING));
  b.SetNextJobId(5);
  WriteOk(b);
  EXPECT_EQ(Load().next_job_id, 42);
}

TEST_P(StateStoreContract, ArchiveMovesJobToHistoryDeleteDropsIt) {
  WriteBatch b;
  b.PutJob(Job(7, JOB_COMPLETED));
  b.PutJob(Job(8, JOB_PENDING));
  b.ArchiveJob(7);
  b.DeleteJob(8);
  WriteOk(b);
  Reopen();
  EXPECT_TRUE(Load().jobs.empty());
  auto hist = store_->LoadHistoryJob(7);
  ASSERT_TRUE(hist.ok());
  ASSERT_TRUE(hist->has_value());
  EXPECT_EQ((*hist)->state(), JOB_COMPLETED);
  EXPECT_FALSE(store_->LoadHistoryJob(8)->has_value());
}

TEST_P(StateStoreContract, ScriptsStoredReplacedAndDeleted) {
  WriteBatch b;
  b.PutScript(5, Script("echo five"));
  b.PutScript(6, Script("echo six"));
  WriteOk(b);
  WriteBatch b2;
  b2.PutScript(5, Script("echo five again"));
  b2.DeleteScript(6);
  WriteOk(b2);
  Reopen();
  auto five = store_->LoadScript(5);
  ASSERT_TRUE(five.ok());
  ASSERT_TRUE(five->has_value());
  EXPECT_EQ((*five)->script(), "#!/bin/sh\necho five again\n");
  ASSERT_EQ((*five)->env_size(), 2);
  EXPECT_EQ((*five)->env(1), "PATH=/usr/bin");
  EXPECT_FALSE(store_->LoadScript(6)->has_value());
  // Scripts are not jobs: loading the state neither lists nor needs them.
  EXPECT_TRUE(Load().jobs.empty());
}

TEST_P(StateStoreContract, ReservationsPersistAndDelete) {
  WriteBatch b;
  ReservationInfo r;
  r.set_name("maint");
  r.set_start_time(100);
  r.set_end_time(200);
  r.add_nodes("node1");
  b.PutReservation(r);
  r.set_name("gone");
  b.PutReservation(r);
  WriteOk(b);
  WriteBatch d;
  d.DeleteReservation("gone");
  WriteOk(d);
  Reopen();
  LoadedState st = Load();
  ASSERT_EQ(st.reservations.size(), 1u);
  EXPECT_EQ(st.reservations[0].name(), "maint");
  EXPECT_EQ(st.reservations[0].end_time(), 200);
  EXPECT_EQ(st.reservations[0].nodes(0), "node1");
}

TEST_P(StateStoreContract, AssocRecordsPutReplaceEraseAndReload) {
  ASSERT_TRUE(store_
                  ->WriteAssocRecords({{"user",
                                        "u\x1f"
                                        "a",
                                        "2"},
                                       {"account", "a", "1"}},
                                      {})
                  .ok());
  ASSERT_TRUE(store_
                  ->WriteAssocRecords({{"account", "a", "3"}, {"qos", "high", "4"}}, {{"user",
                                                                                       "u\x1f"
                                                                                       "a",
                                                                                       ""}})
                  .ok());
  Reopen();
  auto recs = store_->LoadAssocRecords();
  ASSERT_TRUE(recs.ok());
  ASSERT_EQ(recs->size(), 2u);  // ordered by (kind, name)
  EXPECT_EQ((*recs)[0], (AssocRecord{"account", "a", "3"}));
  EXPECT_EQ((*recs)[1], (AssocRecord{"qos", "high", "4"}));
}

// `sluice state dump` / `restore`: a dump holds every record; restored into an empty store
// (of another engine, and back into this one) it dumps the same again.
TEST_P(StateStoreContract, DumpHoldsEverythingAndRestoresIntoAnEmptyStore) {
  WriteBatch b;
  b.PutJob(Job(1, JOB_PENDING));
  b.PutJob(Job(2, JOB_COMPLETED));
  b.ArchiveJob(2);
  b.PutScript(1, Script("echo one"));
  ReservationInfo r;
  r.set_name("maint");
  r.add_nodes("node01");
  b.PutReservation(r);
  b.PutNode({"node02", true, false, "bad fan", 100, 0});
  b.SetNextJobId(3);
  WriteOk(b);
  ASSERT_TRUE(store_->WriteAssocRecords({{"user", "alice", "u1"}}, {}).ok());
  StateDump dump;
  ASSERT_TRUE(store_->Dump(&dump).ok());
  EXPECT_EQ(DumpSummary(dump),
            "jobs=1 history=1 scripts=1 reservations=1 nodes=1 assoc=1 next_job_id=3");
  EXPECT_EQ(dump.format(), kStateDumpFormat);
  EXPECT_EQ(dump.history(0).state(), JOB_COMPLETED);
  EXPECT_EQ(dump.scripts(0).script().script(), "#!/bin/sh\necho one\n");
  // Not into a store that holds anything.
  Status full = RestoreState(dump, store_.get());
  EXPECT_EQ(full.code(), Code::kFailedPrecondition) << full.message();
  // Into another engine, then into an emptied store of this one.
  MemoryStateStore memory;
  ASSERT_TRUE(RestoreState(dump, &memory).ok());
  StateDump via_memory;
  ASSERT_TRUE(memory.Dump(&via_memory).ok());
  if (GetParam() == Engine::kPostgres) {
    ASSERT_TRUE(ResetControllerTables(pg_).ok());
  } else {
    std::filesystem::remove(dir_ + "/state.db");
    store_.reset();
  }
  Reopen();
  Status restored = RestoreState(via_memory, store_.get());
  ASSERT_TRUE(restored.ok()) << restored.message();
  StateDump again;
  ASSERT_TRUE(store_->Dump(&again).ok());
  for (StateDump* d : {&dump, &again}) {
    d->clear_source();
    d->clear_created();
  }
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(dump, again))
      << dump.DebugString() << "\nvs\n" << again.DebugString();
  EXPECT_EQ(store_->LoadScript(1).value()->script(), "#!/bin/sh\necho one\n");
  EXPECT_EQ(store_->LoadHistoryJob(2).value()->state(), JOB_COMPLETED);
}

INSTANTIATE_TEST_SUITE_P(Engines, StateStoreContract,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres, Engine::kMemory),
                         [](const auto& info) {
                           switch (info.param) {
                             case Engine::kSqlite:
                               return "Sqlite";
                             case Engine::kPostgres:
                               return "Postgres";
                             default:
                               return "Memory";
                           }
                         });

TEST(MemoryStateStore, RefusedWritesChangeNothing) {
  MemoryStateStore store;
  store.FailNextWrites(1);
  WriteBatch b;
  b.PutJob(JobInfo());
  EXPECT_FALSE(store.Write(b).ok());
  EXPECT_TRUE(store.LoadAll()->jobs.empty());
  EXPECT_TRUE(store.Write(b).ok());
  EXPECT_EQ(store.LoadAll()->jobs.size(), 1u);
  EXPECT_EQ(store.batches_written(), 1);
}

}  // namespace
}  // namespace sluice::storage
