// Clock: the only way code reads the time. RealClock reads the system clock;
// ManualClock is set and advanced by tests and the simulator.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace sluice {

// Seconds since the Unix epoch (Slurm's time_t granularity) plus a millisecond view.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMs() const = 0;
  int64_t Now() const { return NowMs() / 1000; }
};

class RealClock : public Clock {
 public:
  int64_t NowMs() const override;
  // Monotonic milliseconds / microseconds, for measuring intervals (not for timestamps).
  static int64_t MonotonicMs();
  static int64_t MonotonicUs();
};

class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t now_s = 0) : now_ms_(now_s * 1000) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  void Set(int64_t now_s) { now_ms_ = now_s * 1000; }
  void AdvanceMs(int64_t ms) { now_ms_ += ms; }
  void Advance(int64_t s) { now_ms_ += s * 1000; }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace sluice
