// Controller: the owner-thread core of sluicectld. It owns the components that hold the
// cluster's state (ctld/components/: JobTable, NodeTable, StepTable, JobScripts,
// ReservationBook, AssocDb, AcctFeed, the sched::UsageLedger), wires them, and implements
// every client and node API operation as a plain method; nothing in here locks or blocks.
// The event loop (runtime/owner_loop.h) runs these methods on one thread and commits
// once per queue drain (group commit): every mutation marks jobs/nodes dirty, a commit
// writes them in ONE StateStore transaction, and only after it succeeds are agent
// messages (launch, signal, limit updates) handed to the AgentLink and replies released
// to clients.
//
// Files: controller.cc (load, commit, tick, helpers), client_ops.cc (client API),
// node_ops.cc (agent registration, heartbeats, job ends, liveness),
// scheduler_loop.cc (scheduling passes and launches), health_ops.cc (node health
// checks, Prolog/Epilog failures).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "acct/acct_record.h"
#include "acct/acct_writer.h"
#include "client.pb.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/status.h"
#include "ctld/components/access.h"
#include "ctld/components/acct_feed.h"
#include "ctld/components/assoc_db.h"
#include "ctld/components/cluster_metrics.h"
#include "ctld/components/ctld_stats.h"
#include "ctld/components/fair_share.h"
#include "ctld/components/gpu_hours.h"
#include "ctld/components/job_scripts.h"
#include "ctld/components/job_table.h"
#include "ctld/components/node_table.h"
#include "ctld/components/pass_order.h"
#include "ctld/components/preemption.h"
#include "ctld/components/recent_events.h"
#include "ctld/components/reservation_book.h"
#include "ctld/components/reservation_spec.h"
#include "ctld/components/step_launch.h"
#include "ctld/components/step_resources.h"
#include "ctld/components/step_table.h"
#include "ctld/runtime/agent_link.h"
#include "log/log.h"
#include "node.pb.h"
#include "sched/array_throttle.h"
#include "sched/priority.h"
#include "sched/runtime_predictor.h"
#include "sched/scheduler.h"
#include "sched/usage_ledger.h"
#include "storage/locked_state_store.h"
#include "storage/state_store.h"

namespace sluice::ctld {

inline constexpr char kMsgAccessDenied[] = "Access/permission denied";
inline constexpr char kMsgAlreadyDone[] = "Job/step already completing or completed";
inline constexpr char kMsgNotPending[] = "Job is no longer pending execution";
inline constexpr char kMsgDisabled[] = "Requested operation is presently disabled";
inline constexpr char kMsgBadNodeState[] = "Invalid node state specified";
// A LaunchJob older than this is refused by agents (NodeAuth freshness) and cannot
// still be in flight.
inline constexpr int64_t kLaunchInFlightS = 70;
inline constexpr char kMsgNeedReason[] =
    "You must specify a reason when DOWNING or DRAINING a node. Request denied";

struct SchedDeps {
  sched::Scheduler* scheduler = nullptr;
  std::function<sched::Decision(const sched::ClusterSnapshot&, const sched::JobRequest&)>
      check_feasible;
};

struct ControllerOptions {
  uint32_t admin_uid = 0;             // the controller's own uid (root is always admin)
  int64_t min_job_age_s = 300;        // finished jobs stay in memory this long
  int64_t sched_min_interval_ms = 5;  // debounce of change-triggered passes
  int64_t sched_period_ms = 10000;    // periodic pass even without changes
  int64_t timeout_grace_s = 60;       // backstop: cancel jobs this long past limit+KillWait
  // Resolves uid/gid to names; default uses getpwuid_r/getgrgid_r.
  std::function<std::string(uint32_t)> user_name;
  std::function<std::string(uint32_t)> group_name;
  // srun/salloc keepalive lease: an interactive allocation or a step whose client was
  // silent this long is released (client killed).
  int64_t client_lease_ms = 5000;
  // Test-only fault injection (sluicectld-faults): called at "commit" (before the state
  // is written), "committed" (written; replies and agent messages not yet out) and "pass"
  // (a scheduling pass started a job, nothing of it committed). Production: unset.
  std::function<void(const char* point)> fault_hook;
  // Where the controller reports events (default: stderr at info).
  log::Logger log;
};

class Controller {
 public:
  Controller(Config config, const Clock* clock, storage::StateStore* store, AgentLink* agents,
             SchedDeps sched, ControllerOptions options);

  // Restores jobs and node flags from the store (skipped with clean_start: the
  // store's jobs are archived and ids continue after the highest one).
  Status Load(bool clean_start);
  // Asks every node not registered since this controller started to register now (once
  // it serves: a restart or a takeover need not wait for the nodes' next heartbeats).
  // `self`: this controller's SlurmctldHost name (agents send to it first).
  void AskNodesToRegister(const std::string& self);
  // scontrol reconfigure (runtime/reconfigure.h, reconfig_ops.cc): `next` differs from the
  // running configuration only in what applies live (config_diff.h) and `scheduler` is
  // built from it. Refused, with nothing changed, when it would end, move or strand work
  // (work_at_risk.h): FailedPrecondition naming each conflict. Otherwise nodes, partitions,
  // topology, limits and priorities take effect at once, and a pass follows.
  Status ApplyConfig(const Config& next, sched::Scheduler* scheduler);
  // Runs `fn` on the owner thread later (launch results); set by the event loop.
  void SetPoster(std::function<void(std::function<void()>)> post) { post_ = std::move(post); }

  // ---- client API (client_ops.cc) ----
  Expected<SubmitReply> Submit(const Caller& caller, const SubmitRequest& req);
  // The jobs `req` names and its filters pass (job_query.h), without their script and
  // environment unless asked (then read from the store: JobScripts).
  // `viewer`: who reads the explanations (PrivateData hides others' job ids in them).
  Expected<GetJobsReply> GetJobs(const GetJobsRequest& req, const Caller* viewer = nullptr) const;
  CancelReply Cancel(const Caller& caller, const CancelRequest& req);
  Expected<GetNodesReply> GetNodes(const GetNodesRequest& req) const;
  GetPartitionsReply GetPartitions() const;
  Status UpdateNode(const Caller& caller, const UpdateNodeRequest& req);
  Status UpdateJob(const Caller& caller, const UpdateJobRequest& req);
  GetConfigReply GetConfig() const;
  // sprio / sshare (components/fair_share.h).
  GetPrioritiesReply GetPriorities(const GetPrioritiesRequest& req) const {
    return fair_share_.Priorities(req, jobs_);
  }
  Expected<GetSharesReply> GetShares() const { return fair_share_.Shares(jobs_); }
  // sdiag: job transitions and scheduling passes since the start or the last reset, and
  // the queues now. `reset` (admins only) zeroes the counters after they were read.
  Expected<GetStatsReply> GetStats(const Caller& caller, bool reset);
  // /metrics (cluster_metrics.h): the per-user and per-account series only for an admin
  // when PrivateData is set. `rpcs`: the RPC statistics (RpcStats::Lifetime()).
  std::string Metrics(const Caller& caller, MetricsArea area,
                      std::map<std::string, RpcStats::Method> rpcs) const;
  // The web dashboard's state (dashboard_view.h) as `caller` may see it, as JSON text
  // (dashboard_ops.cc).
  std::string Dashboard(const Caller& caller) const;

  // ---- node API (node_ops.cc); `node` is the authenticated sender ----
  Expected<RegisterNodeReply> RegisterNode(const RegisterNodeRequest& req);
  HeartbeatReply Heartbeat(const HeartbeatRequest& req);
  Status JobEnded(const JobEndedRequest& req);
  // A LaunchJob's outcome. An unknown one (kUnknown: the agent may have started the run)
  // keeps the job bound to the node until its agent registers again and says whether the
  // run is there, or the node is declared DOWN after SlurmdTimeout.
  void OnLaunchResult(int64_t job_id, int32_t restarts, const std::string& node,
                      const Status& result);
  // A kill or cancel that did not surely arrive is sent again once the node answers
  // (its next heartbeat or registration), as long as it still applies.
  void OnSignalResult(const std::string& node, const SignalJobRequest& req, const Status& result);

  // ---- owner loop hooks ----
  void Tick();                               // liveness, time limits, purges
  bool SchedulePass();                       // scheduler_loop.cc
  bool ScheduleDue(int64_t now_ms) const;    // a pass should run now
  int64_t NextWakeMs(int64_t now_ms) const;  // when the loop should wake at the latest
  // A group commit in three parts, so that the owner loop can go on while the store
  // writes (runtime/owner_loop.h pipelines them, one write at a time):
  //  - PrepareCommit (owner thread) takes every dirty job/node, serialized, and the agent
  //    messages queued since the last commit;
  //  - WriteCommit (any thread) makes them durable in ONE StateStore transaction; it
  //    touches nothing but the store;
  //  - FinishCommit (owner thread) feeds accounting and returns the messages, to be sent
  //    once the callers' replies are released (so e.g. `scontrol requeue` has its answer
  //    before the job's processes are signalled). On failure it puts everything back to
  //    go with the next commit, and returns no message.
  // One commit at a time is between PrepareCommit and FinishCommit. Commit() does all
  // three at once and sends the messages.
  struct PreparedCommit {
    storage::WriteBatch batch;
    JobScripts::Written scripts;
    std::vector<std::string> nodes;  // its jobs are writing_jobs_ (one commit at a time)
    std::vector<int64_t> archived;
    bool next_id = false;
    std::vector<std::function<void()>> outbox;
    bool has_store = false;
    double write_seconds = 0;  // set by WriteCommit
    bool NeedsWrite() const { return has_store && !batch.empty(); }
  };
  PreparedCommit PrepareCommit();
  Status WriteCommit(PreparedCommit* commit) const;
  std::vector<std::function<void()>> FinishCommit(PreparedCommit commit, const Status& written);
  Status Commit();
  // Something for the next commit: dirty records or agent messages.
  bool HasUncommitted() const {
    return !dirty_jobs_.empty() || !dirty_nodes_.empty() || next_id_dirty_ ||
           !archive_jobs_.empty() || !outbox_.empty();
  }

  // ---- job steps and interactive allocations (step_ops.cc) ----
  // Records step JOBID.N, plans its layout and queues one LaunchTasks per node (sent
  // after commit, in parallel); `latch` of the result completes when all answered.
  Expected<StepStart> CreateStep(const Caller& caller, const StepRequest& req);
  // A client call relayed by node `node`'s agent: allowed only for a job allocated
  // there (an unknown job is left to the call itself to report).
  Status CheckRelay(const std::string& node, int64_t job_id) const;
  Status ReleaseAllocation(const Caller& caller, const ReleaseAllocationRequest& req);

  const log::Logger& logger() const { return log_; }

  // ---- read access for tests ----
  const JobTable& jobs() const { return jobs_; }
  const NodeTable& nodes() const { return nodes_; }
  int64_t next_job_id() const { return next_job_id_; }
  // Decayed TRES-billing-seconds charged to (account, user); 0 if none.
  double UsageOf(const std::string& account, const std::string& user) const {
    return fair_share_.ledger().Billing({account, user});
  }

 private:
  friend class ControllerTestPeer;
  int64_t Now() const { return clock_->Now(); }
  void MarkJob(int64_t id) { dirty_jobs_.insert(id); }
  void MarkNode(const std::string& name) { dirty_nodes_.insert(name); }
  // A pass is wanted; an `urgent` one (an interactive allocation waits) skips the
  // sched_min_interval_ms debounce, not the limit to half of the owner thread.
  void WantSchedule(bool urgent = false) {
    sched_wanted_ = true;
    sched_urgent_ = sched_urgent_ || urgent;
  }
  bool RequeueAllowed(const JobInfo& job) const;
  AgentAddress AddressOf(const std::string& node) const;
  // Submissions are checked against config_: it learns the GPUs `n`'s agent found too.
  void SyncFoundGpus(const NodeRuntime& n);
  void SendAfterCommit(std::function<void()> fn) { outbox_.push_back(std::move(fn)); }
  // Runs `fn` on the owner thread: posted when an event loop runs the controller (agent
  // link callbacks come on its threads), at once otherwise (unit tests).
  void OnOwner(std::function<void()> fn) { post_ ? post_(std::move(fn)) : fn(); }
  void SendSignal(const JobInfo& job, SignalKind kind, int sig, bool all_nodes);
  void SendSignalTo(const std::string& node, int64_t job_id, SignalKind kind, int sig);
  // SIGNAL_KILL_STALE to one node of an ending or lost run, with the job: the Epilog's
  // input, and the run it is for (the agent spares a later run of the job).
  void SendJobEndTo(const std::string& node, const JobInfo& job);
  void SendSignalRequest(const std::string& node, SignalJobRequest req);
  // Kills one step run on `node` whose launch had an unknown outcome (step_ops.cc).
  void KillStepOn(const std::string& node, int64_t job_id, int32_t step_id);
  // scancel JOB.STEP (client_ops.cc): the step's tasks get SIGTERM then SIGKILL after
  // KillWait (signal 0 or SIGKILL), or `signal`, on every node of the step.
  CancelResult CancelStep(const Caller& caller, const StepRef& ref, int signal);
  bool SignalStillApplies(const NodeRuntime& n, const SignalJobRequest& req) const;
  void ResendSignals(NodeRuntime* n);  // node_ops.cc

  // Job state transitions (controller.cc).
  void FinishJob(JobInfo* job, JobState state, int exit_code, int term_signal);
  void ReleaseResources(JobInfo* job);
  // A running job's requeue: its processes get SIGTERM/KillWait/SIGKILL, it is COMPLETING
  // and goes back to the queue once its nodes report its end.
  void BeginRequeue(JobInfo* job);
  // A pending job that will never run: `state` (terminal) from now.
  void EndPending(JobInfo* job, JobState state);
  // `cause`: why, in words, for the dashboard's events ("" when the job says it).
  void RequeueNow(JobInfo* job, const std::string& reason, const std::string& cause = "");
  void StartCancel(JobInfo* job, JobState state);
  // A node of the job is gone (lost_node: told nothing more), or "" with `cause`: a part
  // of its allocation failed (e.g. a GPU) and every node of it is told to end it.
  void LoseJob(JobInfo* job, const std::string& lost_node, const std::string& cause = "");
  void ApplyEndReport(JobInfo* job, const JobReport& r);

  // Client helpers (client_ops.cc).
  Status CheckOwner(const Caller& c, const JobInfo* job) const;
  CancelResult CancelOne(const Caller& c, JobInfo* job, const CancelRequest& req);
  bool CancelMatches(const JobInfo& job, const CancelRequest& req) const;
  Status UpdateOne(const Caller& c, JobInfo* job, const UpdateJobRequest& req);
  Status UpdateTimeLimit(const Caller& c, JobInfo* job, int64_t minutes);
  Status Hold(const Caller& c, JobInfo* job, bool user_hold);
  Status Release(const Caller& c, JobInfo* job);
  Status Requeue(const Caller& c, JobInfo* job, bool hold = false);
  std::string TestOnlyMessage(const JobInfo& job);

  // Node helpers (node_ops.cc).
  void SetNodeDown(NodeRuntime* n, bool admin, const std::string& reason, uint32_t uid);
  void FailJobsOn(NodeRuntime* n);
  void ReconcileReports(NodeRuntime* n, const RegisterNodeRequest& req, RegisterNodeReply* reply);
  void CheckLiveness();
  void CheckTimeLimits();
  void PurgeOldJobs();

  // Scheduling (scheduler_loop.cc).
  void StartJob(JobInfo* job, const sched::Decision& d);
  void LaunchOn(const JobInfo& job, int node_index);
  void LaunchHetWhenComplete(int64_t het_job_id);

  // Heterogeneous jobs (het_job_ops.cc): submitted as one, then kept in step: when one
  // component ends, is requeued or cancelled, so are the others (SyncHetGroups, before
  // every commit). User operations on a component act on the whole job (HetFirst).
  Expected<SubmitReply> SubmitHet(const Caller& caller, const SubmitRequest& req);
  // A submitted spec as a job of `caller`: checked, normalised, with its account (no id).
  Expected<JobInfo> NewJob(const Caller& caller, const JobSpec& spec);
  void SyncHetGroups();
  void SyncHetGroup(int64_t het_job_id);
  JobInfo* HetFirst(JobInfo* job);

  // Arrays and dependencies (array_dep_ops.cc).
  enum class DepResult { kWait, kReady, kNever };
  // Parses spec.array_spec / spec.dependency into `job`; returns the task ids (empty:
  // not an array). Errors: "Invalid job array specification", "Job dependency problem".
  Expected<std::vector<int64_t>> ParseArrayAndDeps(JobInfo* job) const;
  // Inserts the job, or one job per array task with consecutive ids.
  void InsertSubmitted(JobInfo job, sched::JobRequest request, const std::vector<int64_t>& tasks);
  std::vector<int64_t> ArrayTaskIds(int64_t array_job_id) const;  // empty: not an array
  std::vector<int64_t> ExpandJobIds(const std::vector<int64_t>& ids, bool skip_finished) const;
  std::vector<const JobInfo*> DependencyTargets(const JobInfo& job, const DependencyTerm& t) const;
  bool SingletonBlocked(const JobInfo& job) const;
  int EvaluateTerm(const JobInfo& job, const DependencyTerm& term) const;
  DepResult EvaluateDependency(JobInfo* job);
  void SetReason(JobInfo* job, const char* reason);
  bool DependencyGate(JobInfo* job);  // may be passed to the scheduler
  // The terms still in the way of `job`, in words: "afterok:811 (811 RUNNING)".
  std::vector<std::string> DependencyWords(const JobInfo& job) const;
  bool ThrottleGate(JobInfo* job, sched::ArrayThrottle* throttle);  // array %N limit

  Config config_;
  const Clock* clock_;
  // The store, behind a lock: the owner loop's writer thread writes commits to it.
  std::unique_ptr<storage::LockedStateStore> locked_store_;
  storage::StateStore* store_;
  AgentLink* agents_;
  SchedDeps sched_;
  ControllerOptions options_;
  log::Logger log_;
  JobTable jobs_;
  JobScripts scripts_{store_};
  NodeTable nodes_;
  int64_t next_job_id_ = 1;
  int64_t start_ms_ = 0;
  CtldStats stats_;
  RecentEvents events_;       // node failures, requeues, preemptions (the dashboard)
  GpuHoursWindow gpu_hours_;  // GPU-hours by account, last 24 h (the dashboard)
  void RecordEvent(EventKind kind, const JobInfo* job, std::string node, std::string text);
  int64_t last_session_ = 0;  // RegisterNodeReply.session last given
  bool next_id_dirty_ = false;
  std::set<int64_t> dirty_jobs_;
  // The jobs of the commit prepared and not yet finished (PrepareCommit..FinishCommit).
  std::set<int64_t> writing_jobs_;
  std::set<std::string> dirty_nodes_;
  std::vector<int64_t> archive_jobs_;
  std::vector<std::function<void()>> outbox_;
  std::function<void(std::function<void()>)> post_;
  bool sched_wanted_ = true;
  bool sched_urgent_ = false;
  int64_t last_sched_ms_ = 0;
  std::map<int64_t, int> launching_;  // job -> LaunchJob calls not answered yet
  std::set<int64_t> backstop_sent_;   // time-limit backstop cancel sent
  uint64_t step_seed_ = 0;            // MASTER_PORT choice

  // Fair-share usage charged since the last pass (and GPU-hours for the dashboard); the
  // ledger saved now and then (assoc_ops.cc).
  void AccrueUsage();
  // Pending requests ordered for the scheduler: partition PriorityTier, then priority
  // (both descending), then job id. `tiers` (each one's partition's) and `jobs` run beside
  // `pending`; the order is recorded in pass_order_.
  void OrderPending(std::vector<sched::JobRequest>* pending, const std::vector<int>& tiers,
                    const std::vector<PassOrder::Job>& jobs);
  // What a pass schedules against: nodes, running jobs with their ends, reservations and
  // (AccountingStorageEnforce=limits) the limits of the running jobs and of `pending`.
  sched::ClusterSnapshot PassSnapshot(const std::vector<sched::JobRequest>& pending) const;
  // Sets `explanation` on the pending jobs of `reply` (explain_ops.cc), naming only the
  // jobs `viewer` may see (nullptr: every job).
  void Explain(GetJobsReply* reply, const Caller* viewer = nullptr) const;
  // SchedulerParameters, parsed at load and reconfigure. With bf_predict=user2 passes plan
  // with each user's last two run times (sched/runtime_predictor.h), learnt from the jobs
  // that end here (memory only: a restarted controller plans with time limits until its
  // users' jobs end again); queue_order names the order explanations count jobs ahead in.
  sched::SchedulerConfig knobs_;
  sched::RuntimePredictor runtimes_;
  // The run time a pass plans for a job of `job`'s user under its limit (0: the limit).
  int64_t PredictedRuntime(const JobInfo& job) const;

 public:
  // ---- step resources and client leases (step_ops.cc, step_lease_ops.cc) ----
  // srun/salloc keepalive: refreshes the leases of the job (interactive) and its steps;
  // ended_step_ids free their resources at once.
  Status Keepalive(const Caller& caller, const KeepaliveRequest& req);
  GetStepsReply GetSteps(const GetStepsRequest& req) const;
  // sstat: the agents of running step job.step (and the link to ask them through), for
  // its owner, an operator, or anyone when PrivateData does not hide others' jobs.
  struct StepUsageTargets {
    std::vector<AgentAddress> agents;
    int ntasks = 0;
    AgentLink* link = nullptr;
  };
  Expected<StepUsageTargets> UsageTargets(const Caller& caller, int64_t job_id,
                                          int32_t step_id) const;
  const StepTable& steps() const { return steps_; }

  // ---- advance reservations and partition access (reservation_ops.cc) ----
  // scontrol create|update|delete|show reservation; changes are admin-only and are
  // written to the store before the reply.
  Expected<ReservationReply> Reservation(const Caller& caller, const ReservationRequest& req);
  const std::map<std::string, ReservationInfo>& reservations() const { return resvs_.all(); }

 private:
  void ExpireClientLeases();  // from Tick: silent clients lose steps/allocations
  void RestoreSteps(const NodeRuntime& n, const RegisterNodeRequest& req);  // after a restart
  StepTable steps_;
  Status PickReservationNodes(const ResvEdit& e, ReservationInfo* r);
  // Partition AllowAccounts/DenyAccounts/AllowQos/AllowGroups, OverSubscribe=EXCLUSIVE
  // (sets spec.exclusive) and --reservation access, with Slurm's messages.
  Status CheckSubmitAccess(JobInfo* job) const;
  ReservationBook resvs_{store_};
  // Node loss, requeue and checkpoint signals (requeue_ops.cc).
  // After node loss or a failed launch: requeue (JobRequeue/--requeue, at most
  // MaxBatchRequeue times) or end NODE_FAIL with `fail_reason`.
  void AutoRequeueOrFail(JobInfo* job, const std::string& why, const std::string& fail_reason);
  // RequeueExit / RequeueExitHold: true when the end was turned into a requeue.
  bool RequeueOnExitCode(JobInfo* job, JobState end_state, const JobReport& r);
  // Held (priority 0, JobHeldUser) right after a requeue (requeuehold, RequeueExitHold).
  void HoldRequeued(JobInfo* job);
  // SIGNAL_DELIVER to the job's nodes: steps only, batch shell only, or both (full).
  void DeliverSignal(const JobInfo& job, int sig, bool batch_only, bool full);
  // --signal: sends SIG once a running job is within TIME seconds of its limit.
  void CheckWarnSignals();
  // Node health and Prolog/Epilog results (health_ops.cc).
  // Acts once per NodeHealth.seq: drain on failure, lift its own drain on a pass.
  void ApplyHealth(NodeRuntime* n, const NodeHealth& health);
  // Drains `node` by the system (uid 0) unless it is already drained or down.
  void SystemDrain(NodeRuntime* n, const std::string& reason);
  // Lifts the drain SystemDrain set with `reason` (never an admin's, nor another reason's);
  // true when it did.
  bool LiftSystemDrain(NodeRuntime* n, const std::string& reason);
  // The agent's GPU health (health_ops.cc): a GPU that fails takes no more jobs (its node
  // drained with a reason naming it, or only it withheld: GpuHealthAction) and the jobs on
  // it are lost as with a failed node; one that recovers lifts the drain it caused.
  void ApplyGpuHealth(NodeRuntime* n, const GpuHealth& health);
  // Prolog/Epilog failures of the batch host in an end report: drains it; a failed
  // prolog requeues the job (returns true: the report is fully handled).
  bool HandleNodeScripts(JobInfo* job, const JobReport& r);

 public:
  // ---- associations, QOS, sacctmgr and submit limits (assoc_ops.cc) ----
  // sacctmgr: show for everyone; changes need AdminLevel Operator/Administrator (or
  // root/SlurmUser) and are written to the store before the reply.
  Expected<SacctmgrReply> Sacctmgr(const Caller& caller, const SacctmgrRequest& req);
  const AssocDb& assoc_db() const { return assoc_db_; }
  // AccountingStorageEnforce (associations, limits, qos, safe).
  struct EnforceFlags {
    bool associations = false, limits = false, qos = false, safe = false;
  };
  const EnforceFlags& enforce() const { return enforce_; }
  static EnforceFlags EnforceOf(const Config& config);  // its AccountingStorageEnforce

 private:
  Status LoadAssociations();   // from Load(): records + fair-share usage
  void SaveUsage(bool force);  // throttled write of usage_ (assoc record)
  // Submit: association / QOS validity and submit limits (after FillDefaultAccount).
  Status CheckAssocSubmit(JobInfo* job, int64_t count) const;
  // A job without --account gets the user's DefaultAccount, else (associations not
  // enforced) "root", as Slurm's jobs always carry one (SLURM_JOB_ACCOUNT, squeue %a).
  void FillDefaultAccount(JobInfo* job) const;
  AssocDb assoc_db_;
  Access access_{&config_, &assoc_db_, options_.admin_uid, &options_.user_name};
  EnforceFlags enforce_;
  int64_t usage_saved_ms_ = -1;

 public:
  // Who may see and do what (admin levels, PrivateData's filters).
  const Access& access() const { return access_; }

  // ---- preemption (preempt_ops.cc) ----
  // QOS preemption rules by QOS name (PreemptType=preempt/qos: which QOS each may preempt,
  // its victims' mode and grace time). The single wiring point for QOS objects.
  void SetQosPreemptRules(sched::PreemptRules rules);
  // The rules from the QOS objects of the association database (sacctmgr), after it loads
  // or changes.
  void SyncQosPreemptRules();

 private:
  void ApplyPreemptions(const sched::Plan& plan);
  void StartPreempt(JobInfo* job, int64_t preemptor);  // signal now, kill after grace
  void KillPreempted(JobInfo* job);
  void CheckPreemptGrace();  // from Tick
  // From ApplyEndReport: a victim's end (requeue or PREEMPTED); false = not a victim's.
  bool EndPreempted(JobInfo* job);
  Preemption preemption_{&config_, [this](const JobInfo& j) { return assoc_db_.JobQos(j); }};
  PassOrder pass_order_;  // the last pass's, for Explain
  FairShare fair_share_{&config_, &assoc_db_,
                        [this](const JobInfo& j) { return assoc_db_.JobQos(j); }};

 public:
  // ---- accounting (acct_ops.cc) ----
  // Committed job changes, step starts/ends go to `writer` (queued, written by its own
  // thread: the owner thread never waits on the accounting database).
  void SetAccounting(acct::AcctSink* writer) { acct_.SetSink(writer); }
  // Posts the records of every job in memory (start-up re-sync: a crash between a
  // state commit and its accounting write loses nothing).
  void AcctResync();
  // sacct's live part: the current records of the matching jobs in memory.
  AcctJobsReply AcctLive(const AcctJobsRequest& req) const;

 private:
  // The committed jobs and node changes to the feed.
  void AcctAfterCommit(const std::set<int64_t>& jobs, bool nodes_changed);
  AcctFeed acct_{clock_};
};

}  // namespace sluice::ctld
