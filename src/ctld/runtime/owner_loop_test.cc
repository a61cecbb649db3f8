// The owner loop's pipelined commit: the loop runs on while a batch is written, and a
// batch's acks and agent messages wait for its write; a failed write fails its acks and
// its records go with the next batch.
#include "ctld/runtime/owner_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>

#include "ctld/testing/controller_harness.h"
#include "storage/memory_state_store.h"

namespace sluice::ctld {
namespace {

using namespace std::chrono_literals;

// A MemoryStateStore whose writes wait while the gate is shut (a slow disk on demand).
class GatedStore final : public storage::StateStore {
 public:
  void Shut() { Set(false); }
  void Open() { Set(true); }
  // Waits until `n` writes have begun; false after 10 s.
  bool WaitForWrites(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return started_ >= n; });
  }
  storage::MemoryStateStore& inner() { return inner_; }
  int writes() {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
  }

  Status Write(const storage::WriteBatch& batch) override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++started_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
    }
    return inner_.Write(batch);
  }
  Expected<storage::LoadedState> LoadAll() override { return inner_.LoadAll(); }
  Expected<std::optional<JobInfo>> LoadHistoryJob(int64_t id) override {
    return inner_.LoadHistoryJob(id);
  }
  Expected<std::optional<JobScript>> LoadScript(int64_t id) override {
    return inner_.LoadScript(id);
  }
  Expected<std::vector<storage::AssocRecord>> LoadAssocRecords() override {
    return inner_.LoadAssocRecords();
  }
  Status WriteAssocRecords(const std::vector<storage::AssocRecord>& puts,
                           const std::vector<storage::AssocRecord>& erase) override {
    return inner_.WriteAssocRecords(puts, erase);
  }
  Status Dump(StateDump* out) override { return inner_.Dump(out); }

 private:
  void Set(bool open) {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = open;
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  int started_ = 0;
  storage::MemoryStateStore inner_;
};

class OwnerLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctl_ = std::make_unique<Controller>(testing::SmallCluster({"n1"}, "batch"), &clock_, &store_,
                                        &link_, SchedDeps{&sched_, testing::FakeFeasible},
                                        ControllerOptions{});
    ASSERT_TRUE(ctl_->Load(false).ok());
    ASSERT_TRUE(ctl_->RegisterNode(testing::EmptyNode("n1")).ok());
    // A pass saves the fair-share usage, straight to the store, at most once a second:
    // done here, and the clock stands still, so no pass of the loop writes besides its
    // commits (a save would wait behind a hanging write).
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
    loop_ = std::make_unique<OwnerLoop>(ctl_.get(), &clock_);
    loop_->Start();
  }
  void TearDown() override {
    store_.Open();
    loop_.reset();
  }

  // Submits a one-CPU job through the loop; the future holds its answer.
  std::future<Expected<SubmitReply>> Submit() {
    auto acked = std::make_shared<std::promise<Expected<SubmitReply>>>();
    loop_->CallAsync<SubmitReply>(
        [](Controller* c) {
          SubmitRequest r;
          r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
          r.mutable_spec()->set_work_dir("/tmp");
          return c->Submit({1000, 1000}, r);
        },
        [acked](Expected<SubmitReply> rep) { acked->set_value(std::move(rep)); });
    return acked->get_future();
  }
  // Runs `fn` on the owner thread and returns its result as soon as it ran (without
  // waiting for any commit). A loop that does not run within 10 s fails the test; the
  // gate is then opened so that it ends.
  template <typename F>
  auto OnOwner(F fn) {
    std::promise<decltype(fn(ctl_.get()))> ran;
    auto result = ran.get_future();
    loop_->Post([&]() -> OwnerLoop::Ack {
      ran.set_value(fn(ctl_.get()));
      return nullptr;
    });
    if (result.wait_for(10s) != std::future_status::ready) {
      ADD_FAILURE() << "the owner loop did not run a closure within 10 s";
      store_.Open();
    }
    return result.get();
  }
  size_t Launches() {
    return OnOwner([this](Controller*) { return link_.launches.size(); });
  }

  ManualClock clock_{1'700'000'000};
  GatedStore store_;
  testing::FakeAgentLink link_;
  testing::FirstFitScheduler sched_;
  std::unique_ptr<Controller> ctl_;
  std::unique_ptr<OwnerLoop> loop_;
};

TEST_F(OwnerLoopTest, TheLoopRunsOnWhileABatchIsWrittenAndItsAcksAndLaunchesWait) {
  store_.Shut();
  auto first_acked = Submit();
  ASSERT_TRUE(store_.WaitForWrites(1));

  // The first batch's write hangs; the loop still runs closures and passes, and the
  // pass launches the job, but nothing is answered or sent until the write is done.
  auto second_acked = Submit();
  EXPECT_TRUE(OnOwner([](Controller* c) { return c->jobs().Find(2) != nullptr; }));
  OnOwner([](Controller* c) { return c->SchedulePass(); });
  EXPECT_EQ(OnOwner([](Controller* c) { return c->jobs().Find(1)->state(); }),
            JobState::JOB_RUNNING);
  EXPECT_EQ(first_acked.wait_for(100ms), std::future_status::timeout);
  EXPECT_EQ(second_acked.wait_for(0ms), std::future_status::timeout);
  EXPECT_EQ(Launches(), 0u);

  store_.Open();
  ASSERT_EQ(first_acked.wait_for(10s), std::future_status::ready);
  ASSERT_EQ(second_acked.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(first_acked.get().ok());
  EXPECT_TRUE(second_acked.get().ok());
  for (int i = 0; i < 1000 && Launches() < 2; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(Launches(), 2u);  // the second job started in a later pass

  loop_->Stop();
  auto stored = store_.LoadAll();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->jobs.size(), 2u);
  EXPECT_EQ(stored->jobs[0].state(), JobState::JOB_RUNNING);
}

TEST_F(OwnerLoopTest, AFailedWriteFailsItsAcksAndItsRecordsGoWithTheNextBatch) {
  // Once the loop's first commit is done (an answer comes after it), the next write fails.
  ASSERT_TRUE(loop_->Call<bool>([](Controller*) { return true; }).ok());
  OnOwner([this](Controller*) {
    store_.inner().FailNextWrites(1);
    return true;
  });
  auto first_acked = Submit();
  ASSERT_EQ(first_acked.wait_for(10s), std::future_status::ready);
  Expected<SubmitReply> rep = first_acked.get();
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.status().message(), kMsgSaveFailed);

  auto second_acked = Submit();
  ASSERT_EQ(second_acked.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(second_acked.get().ok());
  loop_->Stop();
  auto stored = store_.LoadAll();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->jobs.size(), 2u);  // the first job's record was written again
  EXPECT_EQ(stored->next_job_id, 3);
}

// A store that keeps refusing is tried again with the next calls or tick, not in a loop.
TEST_F(OwnerLoopTest, AStoreThatRefusesIsNotRetriedInALoop) {
  ASSERT_TRUE(loop_->Call<bool>([](Controller*) { return true; }).ok());
  OnOwner([this](Controller*) {
    store_.inner().FailNextWrites(1'000'000);
    return true;
  });
  auto first_acked = Submit();
  ASSERT_EQ(first_acked.wait_for(10s), std::future_status::ready);
  EXPECT_FALSE(first_acked.get().ok());
  const int after = store_.writes();
  std::this_thread::sleep_for(200ms);
  EXPECT_LE(store_.writes() - after, 1);
}

TEST_F(OwnerLoopTest, StopWritesTheBatchInFlightAndReleasesItsAcks) {
  store_.Shut();
  auto first_acked = Submit();
  ASSERT_TRUE(store_.WaitForWrites(1));
  std::thread stopper([this] { loop_->Stop(); });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(first_acked.wait_for(0ms), std::future_status::timeout);
  store_.Open();
  stopper.join();
  ASSERT_EQ(first_acked.wait_for(0ms), std::future_status::ready);
  EXPECT_TRUE(first_acked.get().ok());
  auto stored = store_.LoadAll();
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->jobs.size(), 1u);
}

}  // namespace
}  // namespace sluice::ctld
