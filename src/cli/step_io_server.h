// StepIoServer: srun's end of a job step's I/O (framing in common/step_io.h). It listens
// on TCP (all addresses, a free port), accepts one connection per step node (kHello
// with the step's key; anything else is dropped), and multiplexes the tasks' output
// onto srun's stdout/stderr: line-buffered per task and stream (a partial last line is
// flushed when the task ends), `-l` prefixes "N: " (padded to the widest rank), `-u`
// writes bytes as they come. Signals arriving on `signal_fd` (a signalfd) are handled
// as Slurm's srun does: SIGINT once prints the step's status, twice within a second
// forwards SIGINT to every task; SIGTERM/SIGHUP/SIGQUIT are forwarded.
// Run() returns when every node sent kNodeDone or its connection dropped, when no node
// connected within connect_timeout_ms, or when kill-on-bad-exit / --wait ended it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/step_io.h"

namespace sluice {

struct StepIoConfig {
  std::string step_name;           // "StepId=12.0" for messages
  std::vector<std::string> nodes;  // by node index
  std::vector<int> task_nodes;     // rank -> node index
  std::string key;
  bool label = false;
  bool unbuffered = false;
  bool kill_on_bad_exit = false;
  int wait_s = 0;
  bool quit_on_interrupt = false;  // the first SIGINT kills the tasks
  int connect_timeout_ms = 30'000;
  int signal_fd = -1;
  // -o/-e: the stream a task's output goes to (nullptr: srun's own out/err).
  std::function<std::ostream*(uint32_t rank, bool is_err)> sink;
  int stdin_fd = -1;  // read and forwarded (kStdin) to stdin_ranks
  std::vector<int> stdin_ranks;
  std::function<void(const char* event)> trace;  // SLUICE_LAUNCH_TRACE: first hello, first exit
};

struct TaskOutcome {
  bool ended = false;
  int wait_status = 0;      // raw waitpid status
  int64_t max_rss_kb = -1;  // accounting (from the exit frame; -1 = unknown)
  int64_t cpu_ms = -1;
  // The GPUs of the task's node, sampled (with the node's last task only; -1 = none).
  int64_t gpu_util_ave = -1, gpu_util_max = -1, gpu_mem_ave_mb = -1, gpu_mem_max_mb = -1;
};

class StepIoServer {
 public:
  static Expected<std::unique_ptr<StepIoServer>> Listen();
  ~StepIoServer();
  int port() const { return port_; }

  // Streams output to `out`/`err` and returns each task's outcome (by rank).
  std::vector<TaskOutcome> Run(const StepIoConfig& config, std::ostream* out, std::ostream* err);

 private:
  struct Conn {
    int fd = -1;
    int node = -1;  // -1 until kHello
    bool done = false;
    FrameReader reader;
  };
  explicit StepIoServer(int fd, int port) : listen_fd_(fd), port_(port) {}
  void Accept();
  bool ReadConn(Conn* c);
  void HandleFrame(Conn* c, const Frame& f);
  void Output(uint32_t rank, bool is_err, std::string_view data);
  void FlushTask(uint32_t rank);
  void Broadcast(int sig);
  void HandleSignal(int sig);
  bool Finished() const;
  void CloseAll();
  // "srun: StepId=12.0 tasks 0,2-9: running" and "... task 1: exited" (Ctrl-C, --wait).
  void ReportTaskStates();

  int listen_fd_ = -1;
  int port_ = 0;
  const StepIoConfig* cfg_ = nullptr;
  std::ostream* out_ = nullptr;
  std::ostream* err_ = nullptr;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<bool> node_seen_;
  std::vector<TaskOutcome> tasks_;
  std::map<std::pair<uint32_t, bool>, std::string> partial_;
  int label_width_ = 1;
  int64_t last_sigint_ms_ = 0;
  int64_t first_end_ms_ = 0;
  bool aborted_ = false;
  bool told_step_aborted_ = false;  // "Job step aborted" printed (kAborted from a node)
  bool stdin_open_ = false;
  void ForwardStdin();
};

// srun -v's line per node: "srun: launching StepId=12.0 on host node1, 2 tasks: [0-1]".
std::string LaunchReport(const std::string& step_name, const std::vector<std::string>& nodes,
                         const std::vector<int>& task_nodes);

// Slurm's srun messages and exit code for finished tasks:
//   "srun: error: node01: task 1: Exited with exit code 1" (grouped: "tasks 0-1")
//   "srun: error: node01: task 0: Killed" for signals; exit = max(code, 128+signal).
int ReportTaskOutcomes(const std::vector<TaskOutcome>& tasks, const std::vector<std::string>& nodes,
                       const std::vector<int>& task_nodes, std::ostream* err);

}  // namespace sluice
