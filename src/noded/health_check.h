// HealthCheck: runs slurm.conf's HealthCheckProgram for the node agent and keeps the
// last result as a NodeHealth (node.proto) that the agent sends with every
// registration and heartbeat.
//   - RunNow(): one run, synchronously (the agent calls it once before it first
//     registers, as slurmd does at start).
//   - Start(): a thread that runs the program every HealthCheckInterval seconds (none
//     when the interval is 0) when the node's allocation state matches
//     HealthCheckNodeState (IDLE: no CPU allocated, ALLOC: all, MIXED: some; ANY and
//     CYCLE: always); `on_change` is called after every run (the agent wakes up and
//     heartbeats at once so a failure drains the node quickly).
//   - Each run gets a new seq; a failed run reports the program's last output line
//     (or "HealthCheck failed exit N"); a passing run after a failure reports
//     failed=false with that failure's reason, so the controller can lift the drain
//     the health check itself caused (never an admin's).
// The program runs as the agent's user with SLURMD_NODENAME and SLURM_CONF set, and is
// killed after kTimeoutMs. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "node.pb.h"

namespace sluice {

struct HealthCheckOptions {
  std::string program;  // "" = no health check
  int interval_s = 0;
  unsigned node_state = 7;  // Config::HealthState bits
  std::string node_name;
  std::string conf_path;
  int cpus = 1;
  int64_t timeout_ms = 60'000;
};

class HealthCheck {
 public:
  explicit HealthCheck(HealthCheckOptions options);
  ~HealthCheck();

  bool enabled() const { return !options_.program.empty(); }
  void RunNow();
  void Start(std::function<void()> on_change);
  void Stop();
  // Latest result (seq 0 before the first run).
  NodeHealth Current() const;
  // The controller's view of how many CPUs are allocated here (from its replies).
  void SetAllocatedCpus(int cpus) { alloc_cpus_ = cpus; }
  // Whether the periodic check runs at `alloc_cpus` allocated CPUs.
  bool StateMatches(int alloc_cpus) const;

 private:
  void Loop();

  HealthCheckOptions options_;
  mutable std::mutex mu_;
  NodeHealth current_;
  std::string last_failure_;
  std::atomic<int> alloc_cpus_{0};
  std::condition_variable cv_;
  bool stop_ = false;
  std::function<void()> on_change_;
  std::thread thread_;
};

}  // namespace sluice
