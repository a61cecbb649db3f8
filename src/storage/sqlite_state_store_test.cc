// What only the SQLite store must do: survive a crash, refuse damaged files; the contract
// every store keeps is in state_store_contract_test.cc.
#include "storage/sqlite_state_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace sluice::storage {
namespace {

class SqliteStateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-store-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/state.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<SqliteStateStore> OpenOrDie() {
    auto s = SqliteStateStore::Open(path_);
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

TEST_F(SqliteStateStoreTest, CrashAfterCommitKeepsEverythingCommitted) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto s = SqliteStateStore::Open(path_);
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

TEST_F(SqliteStateStoreTest, CorruptRecordIsAnErrorNotACrash) {
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

TEST_F(SqliteStateStoreTest, OpenFailsCleanlyOnMissingDirectory) {
  auto s = SqliteStateStore::Open(dir_ + "/no/such/dir/state.db");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cannot open state database"), std::string::npos);
}

TEST_F(SqliteStateStoreTest, OpenFailsCleanlyOnGarbageFile) {
  std::ofstream(path_) << std::string(8192, 'x');
  auto s = SqliteStateStore::Open(path_);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace sluice::storage
