// Agent: the node agent's logic, independent of gRPC serving and of main().
//   - Launch(): validates a BatchLaunch, creates the job directory, writes launch.pb,
//     starts sluice-stepd and returns at once; a job id already present is not run
//     twice (same or older restart count: acknowledged; newer restart of a finished
//     job: the old directory is replaced).
//   - Signal()/UpdateLimit(): forwarded to the job's stepd over its control socket.
//   - Tick(): one pass of the control loop: (re)register when not registered (all
//     jobs of the spool: running and finished-unreported ones), heartbeat when due,
//     report finished jobs with JobEnded until acknowledged (then `reported` marker and
//     the directory is removed), mark vanished stepds as failed, kill jobs the
//     controller lists as stale (SIGKILL, never reported).
//   - Run(): Tick() every heartbeat interval, and at once after Wake() (a stepd ended).
//   - With SetHealthCheck(), the latest NodeHealth goes with every registration and
//     heartbeat; HeartbeatSoon() (a check just ran) heartbeats at the next Tick.
// Time comes from the injected Clock; thread-safe (one mutex around spool changes).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/bounded_set.h"
#include "common/clock.h"
#include "log/log.h"
#include "node.pb.h"
#include "noded/agent_metrics.h"
#include "noded/controller_link.h"
#include "noded/gpu_monitor.h"
#include "noded/health_check.h"
#include "noded/job_tracker.h"
#include "noded/stepd_launcher.h"
#include "stepd.pb.h"

namespace sluice {

struct AgentOptions {
  std::string node_name;
  std::string addr;
  int port = 0;
  int cpus = 1;
  int64_t real_memory_mb = 1;
  std::vector<GpuInfo> gpus;
  std::string gres_error;  // AutoDetect=nvml: how the found GPUs disagree with the config
  // cgroup.conf ConstrainDevices=yes: launches list the device files of the GPUs not given.
  bool constrain_devices = false;
  // NVML loaded (AutoDetect=nvml): batch stepds sample the job's GPUs this often.
  int gpu_sample_interval_s = 0;
  int64_t boot_time = 0;
  int64_t heartbeat_interval_ms = 10'000;
  int64_t retry_interval_ms = 1'000;  // while the controller is unreachable
  // Copied into every BatchLaunch for stepd.
  std::string cluster_name;
  std::string conf_path;
  std::string ctld_host;
  int ctld_port = 0;
  int64_t def_mem_per_cpu_mb = 0;
  std::string agent_socket;  // stepd's job-end notifications
  std::string relay_socket;  // ClientRelay's (srun's SLUICE_RELAY_SOCKET); also in StepLaunch
  // Copied into every BatchLaunch: the stepd runs them around the batch job.
  std::string prolog;
  std::string epilog;
  int64_t prolog_epilog_timeout_s = 0;
  // Self-fencing (node_common/node_lease.h): the lease file renewed after each answered
  // registration/heartbeat, copied into every launch; "" or a timeout of 0: no fencing.
  std::string fence_lease;
  int64_t slurmd_timeout_ms = 0;
  // Where the agent reports events (default: stderr at info; SlurmdDebug in sluiced).
  log::Logger log;
};

class Agent {
 public:
  Agent(AgentOptions options, const Clock* clock, ControllerLink* controller, JobTracker* jobs,
        StepdLauncher* launcher);

  // Starts the batch run `launch` (idempotent per job and restart count). `session` is
  // the controller's registration session the launch was sent in (0: none): a launch
  // from before this agent's last registration is refused unstarted (reply.stale), since
  // that registration told the controller the run was not here.
  LaunchJobReply Launch(BatchLaunch launch, int64_t session = 0);
  // Test-only fault injection: called once a launch's stepd runs, before the answer
  // (sluiced_fault_main.cc uses it to die there). Production never sets it.
  void SetLaunchFaultHook(std::function<void(int64_t job_id)> hook) {
    launch_hook_ = std::move(hook);
  }
  SignalJobReply Signal(const SignalJobRequest& req);
  Status UpdateLimit(const UpdateJobLimitRequest& req);
  // Job steps (agent_steps.cc): writes <spool>/step.<job>.<step>/launch.pb and starts
  // `sluice-stepd --step` on it; a step already present is acknowledged, not rerun.
  LaunchTasksReply LaunchTasks(StepLaunch launch);
  // A call of a client on this node (ClientRelay), forwarded to the controller in this
  // node's name; a LaunchStep without an I/O address gets this node's.
  RelayReply Relay(RelayRequest req);
  // sstat: what this node's tasks of a running step use now (node_common/proc_usage.h).
  AgentStepUsageReply StepUsage(int64_t job_id, int32_t step_id);

  void Tick();
  void Run(const std::atomic<bool>& stop);
  void Wake();

  bool registered() const { return registered_; }
  // Health check results go with registrations and heartbeats (nullptr: none).
  void SetHealthCheck(HealthCheck* health) { health_ = health; }
  // GPU health results go with registrations and heartbeats (nullptr: none).
  void SetGpuMonitor(GpuMonitor* gpus) { gpu_monitor_ = gpus; }
  // Heartbeat at the next Tick (a health check result changed) and wake the loop.
  void HeartbeatSoon();
  // Register at the next Tick with `controller` (which took over) and wake the loop.
  void RegisterSoon(const std::string& controller);
  const AgentOptions& options() const { return options_; }
  // Where the agent counts controller answers and stepd starts (nullptr: nowhere).
  void SetMetrics(AgentMetrics* metrics) { metrics_ = metrics; }
  // The gauges of its /metrics, read now: registered, running jobs and steps.
  AgentMetrics::Gauges MetricsGauges();

 private:
  Status ValidateLaunch(const BatchLaunch& launch) const;
  Status ReplaceOrKeep(const BatchLaunch& launch, bool* already_running);
  void Register();
  void Heartbeat();
  // After a call to the controller that was sent at `sent_ms`: an answer, or a refused
  // connection (no controller listening), renews the node's lease.
  void RenewLease(const Status& outcome, int64_t sent_ms);
  // Whether the node's lease has ended (its jobs are being fenced); false without one.
  bool Fenced() const;
  // Unavailable while Fenced(): launches are refused until the controller answers again.
  Status NotFenced() const;
  void ReportEnds();
  int32_t RunInSpool(int64_t job_id) const;
  // Kills the job's run here and forgets it. reported_run >= 0: the run the kill is for
  // (the one this agent listed, or the one the controller names); a later run is spared.
  void KillStale(int64_t job_id, int32_t reported_run = -1);
  Status SendToStepd(int64_t job_id, const StepdRequest& req);
  std::vector<TrackedJob> ScanAndSettle();
  // `sig` to the step supervisors of `job_id` (SIGTERM: they TERM, then KILL, their
  // tasks), or of its step `step_id` only (>= 0).
  void SignalSteps(int64_t job_id, int sig, int32_t step_id = -1);
  // Calls `fn` with the pid of each live step supervisor of `job_id` (of its step
  // `step_id` only, when >= 0), forgetting the ones gone; returns how often fn was true.
  int ForEachStep(int64_t job_id, int32_t step_id, const std::function<bool(pid_t)>& fn);
  // A step the controller gave up (its launch's outcome was unknown): killed, and never
  // started afterwards (a late launch is refused). Bounded, oldest dropped.
  void KillGivenUpStep(int64_t job_id, int32_t step_id);
  BoundedSet<std::pair<int64_t, int32_t>> given_up_steps_{1024};  // guarded by mu_
  // The live steps' shares of this node, for the registration (agent_steps.cc).
  void ReportSteps(RegisterNodeRequest* req);
  void AdoptSteps();
  bool steps_adopted_ = false;

  AgentOptions options_;
  log::Logger log_;
  const Clock* clock_;
  ControllerLink* controller_;
  JobTracker* jobs_;
  StepdLauncher* launcher_;

  std::mutex mu_;  // spool changes (launch, cleanup)
  // Held by a registration from its spool scan until its kills are done, and by each
  // launch: no launch interleaves with what a registration reports.
  std::mutex session_mu_;
  int64_t session_ = 0;  // RegisterNodeReply.session of the last registration (session_mu_)
  std::function<void(int64_t)> launch_hook_;
  // Jobs whose stepd looked gone, with when that was first seen: a stepd is declared lost
  // only if it still looks gone kLostConfirmMs later (a stepd that is just starting or
  // just finishing can look gone for a moment).
  std::map<int64_t, int64_t> suspect_lost_ms_;
  static constexpr int64_t kLostConfirmMs = 2000;
  std::atomic<bool> registered_{false};
  bool fenced_logged_ = false;  // Tick() logged that the lease ran out
  int64_t next_heartbeat_ms_ = 0;
  struct StepProc {
    pid_t pid;
    std::string dir;
  };
  std::multimap<int64_t, StepProc> steps_;  // job id -> step supervisors (guarded by mu_)
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool woken_ = false;
  HealthCheck* health_ = nullptr;
  GpuMonitor* gpu_monitor_ = nullptr;
  AgentMetrics* metrics_ = nullptr;
  // Records a controller call's outcome and a stepd start's duration in metrics_.
  void CountCall(bool answered);
  void CountSpawn(bool ok, int64_t start_us);
  std::atomic<bool> heartbeat_soon_{false};
  std::atomic<bool> register_soon_{false};

  // Node loss / requeue / signals (agent_signals.cc).
  // Queues StepRelaySignal() with `sig` to each step supervisor of the job (of its step
  // `step_id` only, when >= 0; it signals its tasks); returns how many were signalled.
  int RelayToSteps(int64_t job_id, int sig, int32_t step_id = -1);
  // SIGNAL_DELIVER: steps (unless batch_only) and the batch shell (batch_only / full).
  SignalJobReply Deliver(const SignalJobRequest& req);
  // A newer restart of a job whose older run still runs here: kill that run and wait
  // (up to `wait_ms`) for its stepd to finish.
  Status KillOlderRun(int64_t job_id, int64_t wait_ms);

  // Prolog / Epilog on non-batch nodes (agent_node_scripts.cc).
  struct NodeScriptRun {
    BatchLaunch launch;  // the job as the scripts see it
    bool prolog_ok = true;
  };
  BatchLaunch NodeScriptLaunch(const StepLaunch& step) const;
  // Runs the Prolog before the first step of a job run on a non-batch node; an error
  // fails the step launch (after the controller is told).
  Status StepProlog(const StepLaunch& step);
  // Runs the Epilog once per job run: where its prolog ran, or (given the ended `job`)
  // on an allocated non-batch node where no step ever ran.
  void JobEpilog(int64_t job_id, const JobInfo* job);
  void ReportNodeScript(int64_t job_id, bool prolog_failed, bool epilog_failed);
  std::mutex scripts_mu_;
  std::map<int64_t, NodeScriptRun> node_scripts_;  // guarded by scripts_mu_
  // Runs (job id, restarts) whose step-less epilog already ran; bounded, oldest dropped.
  BoundedSet<std::pair<int64_t, int64_t>> stepless_epilogs_{4096};  // guarded by scripts_mu_
};

// Heartbeat interval: Config.heartbeat_interval_s, else slurmd_timeout / 3, in [1, 30] s.
int64_t HeartbeatIntervalMs(int heartbeat_interval_s, int slurmd_timeout_s);

}  // namespace sluice
