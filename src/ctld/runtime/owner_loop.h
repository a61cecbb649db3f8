// OwnerLoop: the controller's single owner thread. RPC threads Post() closures; the
// loop drains the whole queue, runs every closure against the Controller, commits ONE
// transaction for all their mutations (group commit), and only then runs the acks that
// release the waiting RPCs. It also runs Controller::Tick() every `tick_ms` and
// debounced scheduling passes, each followed by its own commit.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

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
  void Run();
  void RunBatch(std::deque<std::function<Ack()>>* batch);

  Controller* controller_;
  const Clock* clock_;
  int64_t tick_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<Ack()>> queue_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace sluice::ctld
