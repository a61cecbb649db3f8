#include "storage/state_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace sluice::storage {
namespace {

class StateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-store-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/state.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<StateStore> OpenOrDie() {
    auto s = StateStore::Open(path_);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return std::move(s).value();
  }

  static JobInfo Job(int64_t id, JobState state) {
    JobInfo j;
    j.set_job_id(id);
    j.set_state(state);
    j.mutable_spec()->set_name("job" + std::to_string(id));
    j.mutable_spec()->set_script("#!/bin/sh\necho hi\n");
    j.add_alloc()->set_node("node01");
    j.mutable_alloc(0)->add_gpu_ids(3);
    return j;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(StateStoreTest, EmptyDatabaseStartsAtJobOne) {
  auto store = OpenOrDie();
  auto loaded = store->LoadAll();
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(loaded->jobs.empty());
  EXPECT_TRUE(loaded->nodes.empty());
  EXPECT_EQ(loaded->next_job_id, 1);
}

TEST_F(StateStoreTest, WritesSurviveReopen) {
  {
    auto store = OpenOrDie();
    WriteBatch b;
    b.PutJob(Job(1, JOB_PENDING));
    b.PutJob(Job(2, JOB_RUNNING));
    b.PutNode({"node02", true, false, "maintenance", 100, 0});
    b.SetNextJobId(3);
    ASSERT_TRUE(store->Write(b).ok());
    WriteBatch b2;
    b2.PutJob(Job(1, JOB_COMPLETED));  // update in a later batch
    ASSERT_TRUE(store->Write(b2).ok());
  }
  auto store = OpenOrDie();
  auto loaded = store->LoadAll();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->jobs.size(), 2u);
  EXPECT_EQ(loaded->jobs[0].job_id(), 1);
  EXPECT_EQ(loaded->jobs[0].state(), JOB_COMPLETED);
  EXPECT_EQ(loaded->jobs[1].state(), JOB_RUNNING);
  EXPECT_EQ(loaded->jobs[1].alloc(0).gpu_ids(0), 3);
  EXPECT_EQ(loaded->jobs[1].spec().name(), "job2");
  ASSERT_EQ(loaded->nodes.size(), 1u);
  EXPECT_EQ(loaded->nodes[0], (NodeStateRecord{"node02", true, false, "maintenance", 100, 0}));
  EXPECT_EQ(loaded->next_job_id, 3);
}

TEST_F(StateStoreTest, NextIdNeverBelowExistingJobs) {
  auto store = OpenOrDie();
  WriteBatch b;
  b.PutJob(Job(41, JOB_PENDING));
  b.SetNextJobId(5);
  ASSERT_TRUE(store->Write(b).ok());
  EXPECT_EQ(store->LoadAll()->next_job_id, 42);
}

TEST_F(StateStoreTest, ArchiveMovesJobToHistory) {
  auto store = OpenOrDie();
  WriteBatch b;
  b.PutJob(Job(7, JOB_COMPLETED));
  b.PutJob(Job(8, JOB_PENDING));
  b.ArchiveJob(7);
  b.DeleteJob(8);
  ASSERT_TRUE(store->Write(b).ok());
  EXPECT_TRUE(store->LoadAll()->jobs.empty());
  auto hist = store->LoadHistoryJob(7);
  ASSERT_TRUE(hist.ok());
  ASSERT_TRUE(hist->has_value());
  EXPECT_EQ((*hist)->state(), JOB_COMPLETED);
  EXPECT_FALSE(store->LoadHistoryJob(8)->has_value());
}

TEST_F(StateStoreTest, CrashAfterCommitKeepsEverythingCommitted) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto s = StateStore::Open(path_);
    if (!s.ok()) _exit(2);
    for (int i = 1; i <= 50; ++i) {
      WriteBatch b;
      b.PutJob(Job(i, JOB_PENDING));
      b.SetNextJobId(i + 1);
      if (!(*s)->Write(b).ok()) _exit(3);
    }
    _exit(0);  // no destructor, no sqlite3_close: the WAL is left behind
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  auto store = OpenOrDie();
  auto loaded = store->LoadAll();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->jobs.size(), 50u);
  EXPECT_EQ(loaded->next_job_id, 51);
}

TEST_F(StateStoreTest, CorruptRecordIsAnErrorNotACrash) {
  {
    auto store = OpenOrDie();
    WriteBatch b;
    b.PutJob(Job(1, JOB_PENDING));
    ASSERT_TRUE(store->Write(b).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE jobs SET data = x'ffffffff0a'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = OpenOrDie();
  auto loaded = store->LoadAll();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("job 1 record is corrupt"), std::string::npos);
}

TEST_F(StateStoreTest, OpenFailsCleanlyOnMissingDirectory) {
  auto s = StateStore::Open(dir_ + "/no/such/dir/state.db");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cannot open state database"), std::string::npos);
}

TEST_F(StateStoreTest, OpenFailsCleanlyOnGarbageFile) {
  std::ofstream(path_) << std::string(8192, 'x');
  auto s = StateStore::Open(path_);
  EXPECT_FALSE(s.ok());
}

TEST_F(StateStoreTest, ReservationsPersistAndDelete) {
  {
    auto store = OpenOrDie();
    WriteBatch b;
    ReservationInfo r;
    r.set_name("maint");
    r.set_start_time(100);
    r.set_end_time(200);
    r.add_nodes("node1");
    b.PutReservation(r);
    r.set_name("gone");
    b.PutReservation(r);
    ASSERT_TRUE(store->Write(b).ok());
    WriteBatch d;
    d.DeleteReservation("gone");
    ASSERT_TRUE(store->Write(d).ok());
  }
  auto store = OpenOrDie();
  auto loaded = store->LoadAll();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->reservations.size(), 1u);
  EXPECT_EQ(loaded->reservations[0].name(), "maint");
  EXPECT_EQ(loaded->reservations[0].end_time(), 200);
  EXPECT_EQ(loaded->reservations[0].nodes(0), "node1");
}

}  // namespace
}  // namespace sluice::storage
