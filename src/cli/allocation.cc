#include "cli/allocation.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>

#include "common/hostlist.h"

namespace sluice {
namespace {

std::string Absolute(const std::string& path, const std::string& cwd) {
  if (path.empty() || path[0] == '/') return path;
  return cwd.empty() || cwd == "/" ? "/" + path : cwd + "/" + path;
}

std::string RunLength(const std::vector<int>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(counts[i]);
    if (j - i > 1) out += "(x" + std::to_string(j - i) + ")";
    i = j;
  }
  return out;
}

// The job's nodes in the order of its compressed node list (`*list`), as Slurm's
// per-node variables list them.
std::vector<const NodeAlloc*> InHostlistOrder(const JobInfo& job, std::string* list) {
  std::vector<std::string> names;
  for (const NodeAlloc& a : job.alloc()) names.push_back(a.node());
  *list = CompressHostlistSorted(names);
  Expected<std::vector<std::string>> order = ExpandHostlist(*list);
  std::vector<const NodeAlloc*> out;
  for (const std::string& n : order.ok() ? *order : names)
    for (const NodeAlloc& a : job.alloc())
      if (a.node() == n) out.push_back(&a);
  return out;
}

// Waits `ms`, or less when a signal arrives on `fd`; true when one did.
bool SleepOrSignal(int fd, int64_t ms, CliEnv& env) {
  if (fd < 0) {
    env.sleep_ms(ms);
    return false;
  }
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(ms)) <= 0) return false;
  signalfd_siginfo si;
  bool interrupted = false;  // USR1/USR2 do not revoke a pending allocation
  while (::read(fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    interrupted |= si.ssi_signo != SIGUSR1 && si.ssi_signo != SIGUSR2;
  }
  return interrupted;
}

void Cancel(int64_t job_id, ClientApiInterface* api) {
  CancelRequest req;
  req.add_job_ids(job_id);
  api->CancelJobs(req);
}

}  // namespace

SignalWatch::SignalWatch() {
  sigset_t mask;
  sigemptyset(&mask);
  // USR1/USR2 too: srun forwards them to its tasks (scancel --full, checkpoint signals).
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&mask, s);
  sigprocmask(SIG_BLOCK, &mask, &old_);
  fd_ = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

SignalWatch::~SignalWatch() {
  if (fd_ >= 0) ::close(fd_);
  sigprocmask(SIG_SETMASK, &old_, nullptr);
}

Expected<JobSpec> AllocationSpec(const SrunOptions& o, const std::string& default_name,
                                 CliEnv& env) {
  JobSpec spec = o.alloc.spec;
  spec.set_interactive(true);
  ASSIGN_OR_RETURN(std::vector<std::string> vars, ResolveExport(o.alloc.export_spec, env.environ));
  for (auto& v : vars) spec.add_env(std::move(v));
  spec.set_work_dir(o.alloc.chdir.empty() ? env.cwd : Absolute(o.alloc.chdir, env.cwd));
  spec.set_submit_host(env.hostname);
  if (spec.name().empty()) spec.set_name(default_name);
  return spec;
}

JobState CurrentState(int64_t job_id, ClientApiInterface* api) {
  GetJobsRequest req;
  req.add_job_ids(job_id);
  Expected<GetJobsReply> rep = api->GetJobs(req);
  if (!rep.ok()) return JOB_STATE_UNSPECIFIED;
  for (const JobInfo& j : rep->jobs()) {
    if (j.job_id() == job_id) return j.state();
  }
  return JOB_STATE_UNSPECIFIED;
}

Expected<JobInfo> Allocate(const std::string& prog, JobSpec spec, ClientApiInterface* api,
                           CliEnv& env, int signal_fd, int immediate_s) {
  SubmitRequest req;
  *req.mutable_spec() = std::move(spec);
  Expected<SubmitReply> sub = api->SubmitJob(req);
  if (!sub.ok()) {
    PrintErrorLines(env, prog, sub.status().message(), "Unable to allocate resources: ");
    return sub.status();
  }
  int64_t id = sub->job_id();
  bool said_waiting = false;
  int64_t delay = 5, waited_ms = 0;
  for (;;) {
    KeepaliveRequest alive;  // the controller releases allocations whose client went silent
    alive.set_job_id(id);
    (void)api->Keepalive(alive);
    GetJobsRequest q;
    q.add_job_ids(id);
    Expected<GetJobsReply> rep = api->GetJobs(q);
    const JobInfo* job = nullptr;
    if (rep.ok()) {
      for (const JobInfo& j : rep->jobs())
        if (j.job_id() == id) job = &j;
    }
    if (job && job->state() == JOB_RUNNING && !job->completing()) {
      if (said_waiting) *env.err << prog << ": job " << id << " has been allocated resources\n";
      return *job;
    }
    if (job && job->state() != JOB_PENDING) {
      *env.err << prog << ": Job allocation " << id << " has been revoked.\n";
      return FailedPrecondition("allocation revoked");
    }
    if (immediate_s >= 0 && waited_ms >= int64_t{immediate_s} * 1000) {
      Cancel(id, api);
      *env.err << prog << ": error: Unable to allocate resources: Requested nodes are busy\n";
      return Unavailable("immediate");
    }
    if (!said_waiting && immediate_s < 0 && delay >= 40) {
      *env.err << prog << ": job " << id << " queued and waiting for resources\n";
      env.err->flush();
      said_waiting = true;
    }
    if (SleepOrSignal(signal_fd, delay, env)) {
      Cancel(id, api);
      *env.err << prog << ": Job allocation " << id << " has been revoked.\n";
      return FailedPrecondition("interrupted");
    }
    waited_ms += delay;
    delay = std::min<int64_t>(delay * 2, 500);
  }
}

std::string AllocationReport(const std::string& prog, const JobInfo& job) {
  std::string list;
  std::vector<int> cpus;
  for (const NodeAlloc* a : InHostlistOrder(job, &list))
    cpus.push_back(std::max(1, a->cpu_ids_size()));
  return prog + ": jobid " + std::to_string(job.job_id()) + ": nodes(" +
         std::to_string(job.alloc_size()) + "):`" + list + "', cpu counts: " + RunLength(cpus) +
         "\n";
}

void Release(const std::string& prog, int64_t job_id, int exit_code, ClientApiInterface* api,
             CliEnv& env) {
  ReleaseAllocationRequest req;
  req.set_job_id(job_id);
  req.set_exit_code(exit_code);
  Expected<ReleaseAllocationReply> rep = api->ReleaseAllocation(req);
  if (!rep.ok()) {
    *env.err << prog << ": error: releasing job allocation " << job_id << ": "
             << rep.status().message() << "\n";
  }
}

std::vector<std::string> AllocationEnv(const JobInfo& job, const std::string& cluster_name) {
  std::string list;
  std::vector<int> cpus, tasks;
  for (const NodeAlloc* a : InHostlistOrder(job, &list)) {
    cpus.push_back(std::max(1, a->cpu_ids_size()));
    tasks.push_back(std::max(1, a->ntasks()));
  }
  const JobSpec& spec = job.spec();
  std::string id = std::to_string(job.job_id());
  std::string nn = std::to_string(job.alloc_size());
  std::vector<std::string> env = {
      "SLURM_JOB_ID=" + id,
      "SLURM_JOBID=" + id,
      "SLURM_JOB_NAME=" + spec.name(),
      "SLURM_JOB_NODELIST=" + list,
      "SLURM_NODELIST=" + list,
      "SLURM_JOB_NUM_NODES=" + nn,
      "SLURM_NNODES=" + nn,
      "SLURM_JOB_CPUS_PER_NODE=" + RunLength(cpus),
      "SLURM_TASKS_PER_NODE=" + RunLength(tasks),
      "SLURM_JOB_PARTITION=" + spec.partition(),
      "SLURM_SUBMIT_DIR=" + spec.work_dir(),
      "SLURM_SUBMIT_HOST=" + spec.submit_host(),
      "SLURM_CLUSTER_NAME=" + cluster_name,
      "SLURM_JOB_UID=" + std::to_string(job.uid()),
      "SLURM_JOB_USER=" + job.user(),
      "SLURM_JOB_GID=" + std::to_string(job.gid()),
  };
  if (!spec.account().empty()) env.push_back("SLURM_JOB_ACCOUNT=" + spec.account());
  if (spec.ntasks_set() || spec.ntasks_per_node() > 0) {
    int total = 0;
    for (int t : tasks) total += t;
    if (job.num_tasks() > 0) total = job.num_tasks();
    env.push_back("SLURM_NTASKS=" + std::to_string(total));
    env.push_back("SLURM_NPROCS=" + std::to_string(total));
  }
  if (spec.ntasks_per_node() > 0)
    env.push_back("SLURM_NTASKS_PER_NODE=" + std::to_string(spec.ntasks_per_node()));
  if (spec.cpus_per_task() > 0)
    env.push_back("SLURM_CPUS_PER_TASK=" + std::to_string(spec.cpus_per_task()));
  return env;
}

}  // namespace sluice
