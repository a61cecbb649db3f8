// OwnerLoop: the controller's single owner thread. RPC threads Post() closures; the
// loop drains the whole queue, runs every closure against the Controller, commits ONE
// transaction for all their mutations (group commit), and only then runs the acks that
// release the waiting RPCs and sends the agent messages. It also runs Controller::Tick()
// every `tick_ms` and debounced scheduling passes.
//
// The commit is pipelined: a writer thread makes a prepared batch durable (the fsync)
// while the owner thread goes on running closures, ticks and passes, whose mutations
// gather for the next batch. One batch is written at a time, in order, and a batch's
// acks and messages wait for its write, so "acknowledged" and "launched" still mean
// durable; a batch's effects are only visible early to queries, which change nothing.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {

inline constexpr char kMsgSaveFailed[] = "Unable to save controller state";

class OwnerLoop {
 public:
  // Called after the batch containing the closure's mutations was committed.
  using Ack = std::function<void(const Status& commit)>;

  OwnerLoop(Controller* controller, const Clock* clock, int64_t tick_ms = 1000);
  // The controller's logger (thread-safe: any RPC thread may report through it).
  const log::Logger& logger() const { return controller_->logger(); }
  ~OwnerLoop();
  void Start();
  void Stop();

  void Post(std::function<Ack()> fn);
  // Runs `fn` on the owner thread; `done` gets its result there once its effects are
  // durable (a failed commit turns a success into kMsgSaveFailed). `done` must not block.
  template <typename R>
  void CallAsync(std::function<Expected<R>(Controller*)> fn,
                 std::function<void(Expected<R>)> done) {
    Post([this, fn = std::move(fn), done = std::move(done)]() -> Ack {
      auto result = std::make_shared<Expected<R>>(fn(controller_));
      return [done, result](const Status& commit) {
        if (!commit.ok() && result->ok()) {
          done(Expected<R>(Internal(kMsgSaveFailed)));
        } else {
          done(std::move(*result));
        }
      };
    });
  }
  // Runs `fn` on the owner thread and waits until its effects are durable.
  template <typename R>
  Expected<R> Call(std::function<Expected<R>(Controller*)> fn) {
    auto promise = std::make_shared<std::promise<Expected<R>>>();
    auto future = promise->get_future();
    CallAsync<R>(std::move(fn), [promise](Expected<R> r) { promise->set_value(std::move(r)); });
    return future.get();
  }

 private:
  // What a commit releases once its write is done.
  struct Batch {
    Controller::PreparedCommit commit;
    std::vector<Ack> acks;
  };
  void Run();
  // Prepares a commit of what the closures and passes since the last one did, and hands
  // it to the writer, or finishes it at once when it has nothing to write.
  void StartCommit();
  // StartCommit unless a batch is in flight or there is nothing to commit; `want_commit`:
  // a tick or pass ran since the last commit (reset when one starts).
  void MaybeStartCommit(bool* want_commit);
  void Finish(Batch batch, const Status& written);
  void WaitForWriter();  // until the batch in flight is written, then finishes it
  void WriteLoop();      // the writer thread

  Controller* controller_;
  const Clock* clock_;
  int64_t tick_ms_;
  std::vector<Ack> acks_;      // of closures run since the last commit was prepared
  bool write_failed_ = false;  // the last commit's write failed
  std::mutex mu_;
  std::condition_variable cv_;         // the owner thread waits on it
  std::condition_variable writer_cv_;  // the writer thread waits on it
  std::deque<std::function<Ack()>> queue_;
  bool stop_ = false;
  // The batch being written (owner thread only), and under mu_ the hand-over: `to_write_`
  // for the writer, `written_` back when done.
  std::optional<Batch> in_flight_;
  Controller::PreparedCommit* to_write_ = nullptr;
  std::optional<Status> written_;
  bool writer_stop_ = false;  // set by the owner thread as it ends
  std::thread thread_;
  std::thread writer_;
};

}  // namespace sluice::ctld
