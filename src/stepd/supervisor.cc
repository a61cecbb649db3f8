#include "stepd/supervisor.h"

#include <sys/resource.h>

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "node_common/node_scripts.h"
#include "node_common/unix_socket.h"
#include "stepd/job_spawn.h"

namespace sluice {
namespace {

int64_t MonoMs() { return RealClock::MonotonicMs(); }

int64_t JobIdFromDir(const std::string& dir) {
  size_t dot = dir.rfind("job.");
  return dot == std::string::npos ? 0 : std::atoll(dir.c_str() + dot + 4);
}

}  // namespace

Supervisor::Supervisor(std::string job_dir, SupervisorOptions options, const Clock* clock)
    : dir_(std::move(job_dir)), options_(std::move(options)), clock_(clock) {}

Supervisor::~Supervisor() {
  if (sigfd_ >= 0) ::close(sigfd_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

int Supervisor::Run() {
  job_id_ = JobIdFromDir(dir_.path());
  Status st = Start();
  if (!st.ok()) return FailSetup(st);
  Loop();
  AwaitTerminated();
  KillLeftovers();
  return Finish(WithEpilog(MakeReport()));
}

Status Supervisor::Start() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ASSIGN_OR_RETURN(lock_fd_, HoldStepdLock(dir_));  // held until exit: the agent's liveness check
  RETURN_IF_ERROR(WritePidFile(dir_.PidFile(), ::getpid()));
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask, s);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  sigfd_ = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd_ < 0) return Internal(std::string("signalfd: ") + std::strerror(errno));
  RETURN_IF_ERROR(ReadProtoFile(dir_.Launch(), &launch_));
  if (launch_.job_id() <= 0) return InvalidArgument("launch.pb has no job id");
  job_id_ = launch_.job_id();
  lease_ = LeaseWatch(launch_.fence_lease());
  time_limit_s_ = launch_.time_limit_s();
  tracker_ = ProcessTracker::Create(job_id_, options_.cgroups);
  if (!tracker_->cgroup_dir().empty()) {  // for the job's steps on this node
    RETURN_IF_ERROR(WriteFileAtomic(dir_.CgroupFile(), tracker_->cgroup_dir(), 0644, false));
  }
  Status mem = tracker_->SetMemoryLimit(launch_.local().mem_mb() * 1024 * 1024);
  if (!mem.ok()) std::fprintf(stderr, "sluice-stepd: warning: %s\n", mem.message().c_str());
  RETURN_IF_ERROR(tracker_->DenyDevices(
      options_.cgroups, {launch_.deny_devices().begin(), launch_.deny_devices().end()}));
  ASSIGN_OR_RETURN(listen_fd_, ListenSeqpacket(dir_.Socket()));
  RETURN_IF_ERROR(WriteJobScript(dir_, launch_));
  if (HookResult pro = RunProlog(launch_); !pro.ok()) {
    prolog_failed_ = true;
    return FailedPrecondition("Prolog error: " + pro.Reason("Prolog"));
  }
  start_mono_ms_ = MonoMs();
  if (launch_.gpu_sample_interval_s() > 0 && launch_.local().gpu_ids_size() > 0) {
    gpu_sampler_.emplace(
        std::vector<int>(launch_.local().gpu_ids().begin(), launch_.local().gpu_ids().end()),
        launch_.gpu_sample_interval_s(), start_mono_ms_);
  }
  ASSIGN_OR_RETURN(job_pid_, SpawnJob(dir_, launch_, tracker_.get()));
  return Status::Ok();
}

void Supervisor::Loop() {
  while (!job_exited_) {
    pollfd fds[2] = {{sigfd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, PollTimeoutMs());
    if (n < 0 && errno != EINTR) break;
    if (n > 0 && (fds[0].revents & POLLIN)) DrainSignals();
    if (n > 0 && (fds[1].revents & POLLIN) && !job_exited_) AcceptControl();
    ReapChildren();
    CheckDeadlines();
    if (gpu_sampler_ && !job_exited_) gpu_sampler_->Tick(MonoMs());
  }
}

int Supervisor::PollTimeoutMs() const {
  int64_t now = MonoMs();
  int64_t next = -1;
  if (time_limit_s_ > 0 && forced_state_ == JOB_STATE_UNSPECIFIED) {
    next = start_mono_ms_ + time_limit_s_ * 1000;
  }
  if (kill_at_mono_ms_ > 0 && (next < 0 || kill_at_mono_ms_ < next)) next = kill_at_mono_ms_;
  if (auto until = lease_.until_ms(); until && !fenced_) {  // wall clock, as the lease
    int64_t lease_at = now + (*until - clock_->NowMs());
    if (next < 0 || lease_at < next) next = lease_at;
  }
  if (next < 0) return 1000;  // periodic reap as a safety net
  return static_cast<int>(std::clamp<int64_t>(next - now, 0, 1000));
}

void Supervisor::DrainSignals() {
  signalfd_siginfo si;
  while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) Terminate(JOB_CANCELLED, false);
  }
}

void Supervisor::ReapChildren() {
  int status = 0;
  pid_t p;
  while ((p = ::waitpid(-1, &status, WNOHANG)) > 0) {
    if (p == job_pid_) {
      job_exited_ = true;
      wait_status_ = status;
    }
  }
}

void Supervisor::AcceptControl() {
  int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  ucred cred{};
  socklen_t len = sizeof cred;
  StepdRequest req;
  StepdReply reply;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
      (cred.uid != 0 && cred.uid != ::geteuid())) {
    reply.set_error("permission denied");
  } else if (Status st = ReadStepdRequest(fd, &req); !st.ok()) {
    reply.set_error(st.message());
  } else {
    Handle(req, &reply);
  }
  WriteStepdReply(fd, reply);
  ::close(fd);
}

void Supervisor::Handle(const StepdRequest& req, StepdReply* reply) {
  reply->set_ok(true);
  reply->set_job_pid(job_pid_);
  switch (req.op()) {
    case STEPD_PING:
      break;
    case STEPD_CANCEL:
      Terminate(JOB_CANCELLED, false);
      break;
    case STEPD_KILL:
      Terminate(JOB_CANCELLED, true);
      break;
    case STEPD_SIGNAL:
      if (req.signal() <= 0 || req.signal() >= NSIG) {
        reply->set_ok(false);
        reply->set_error("invalid signal " + std::to_string(req.signal()));
      } else if (req.batch_only()) {
        ::kill(job_pid_, req.signal());
      } else {
        tracker_->SignalAll(req.signal());
      }
      break;
    case STEPD_SET_TIME_LIMIT:
      time_limit_s_ = std::max<int64_t>(0, req.time_limit_s());
      break;
    default:
      reply->set_ok(false);
      reply->set_error("unknown request");
  }
}

void Supervisor::Terminate(JobState state, bool immediate) {
  if (forced_state_ == JOB_STATE_UNSPECIFIED) forced_state_ = state;
  if (immediate) {
    tracker_->SignalAll(SIGKILL);
    return;
  }
  if (kill_at_mono_ms_ > 0) return;  // already terminating
  tracker_->SignalAll(SIGCONT);
  tracker_->SignalAll(SIGTERM);
  kill_at_mono_ms_ = MonoMs() + std::max(0, launch_.kill_wait_s()) * 1000;
  if (kill_at_mono_ms_ == 0) kill_at_mono_ms_ = 1;
}

void Supervisor::CheckDeadlines() {
  int64_t now = MonoMs();
  if (time_limit_s_ > 0 && forced_state_ == JOB_STATE_UNSPECIFIED &&
      now >= start_mono_ms_ + time_limit_s_ * 1000) {
    Terminate(JOB_TIMEOUT, false);
  }
  if (kill_at_mono_ms_ > 0 && now >= kill_at_mono_ms_) {
    tracker_->SignalAll(SIGKILL);
    kill_at_mono_ms_ = 0;
  }
  if (!fenced_ && lease_.Expired(clock_->NowMs())) {
    fenced_ = true;
    std::fprintf(stderr,
                 "sluice-stepd: job %lld: the node lease ran out (no contact with the controller): "
                 "SIGKILL to the job\n",
                 static_cast<long long>(job_id_));
    forced_state_ = JOB_NODE_FAIL;  // whatever it was ending as: the controller requeues it
    tracker_->SignalAll(SIGKILL);
  }
}

// A cancel or time limit whose script died before KillWait ran out: what is left of the
// job (a step's tasks finishing their SIGTERM handlers) keeps its KillWait.
void Supervisor::AwaitTerminated() {
  while (kill_at_mono_ms_ > 0 && MonoMs() < kill_at_mono_ms_) {
    ReapChildren();
    if (tracker_->Alive().empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void Supervisor::KillLeftovers() {
  int64_t give_up = MonoMs() + options_.leftover_wait_ms;
  while (true) {
    ReapChildren();
    if (tracker_->Alive().empty()) return;
    if (MonoMs() > give_up) {
      std::fprintf(stderr, "sluice-stepd: warning: job %lld: processes survive SIGKILL\n",
                   static_cast<long long>(job_id_));
      return;
    }
    tracker_->SignalAll(SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

JobReport Supervisor::MakeReport() const {
  JobReport r;
  r.set_job_id(job_id_);
  r.set_restarts(launch_.job().restarts());  // the run this report is about
  r.set_finished(true);
  r.set_end_time(clock_->Now());
  if (WIFEXITED(wait_status_)) r.set_exit_code(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) r.set_term_signal(WTERMSIG(wait_status_));
  struct rusage ru {};
  if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {  // accounting: the batch step's usage
    r.set_max_rss_kb(ru.ru_maxrss);
    r.set_total_cpu_us((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL + ru.ru_utime.tv_usec +
                       ru.ru_stime.tv_usec);
  }
  if (gpu_sampler_ && gpu_sampler_->Usage().samples() > 0) {
    *r.mutable_gpu_usage() = gpu_sampler_->Usage();
  }
  if (forced_state_ != JOB_STATE_UNSPECIFIED) {
    r.set_state(forced_state_);
  } else if (tracker_->OomKilled()) {
    r.set_state(JOB_OUT_OF_MEMORY);
  } else {
    bool ok = WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) == 0;
    r.set_state(ok ? JOB_COMPLETED : JOB_FAILED);
  }
  return r;
}

int Supervisor::Finish(const JobReport& report) {
  Status st = WriteProtoFile(dir_.StatusFile(), report, 0644);
  if (!st.ok()) std::fprintf(stderr, "sluice-stepd: error: %s\n", st.message().c_str());
  if (listen_fd_ >= 0) ::unlink(dir_.Socket().c_str());
  if (!launch_.agent_socket().empty()) {
    SendDatagram(launch_.agent_socket(), std::to_string(report.job_id()));
  }
  if (tracker_) tracker_->Remove();
  return st.ok() ? 0 : 1;
}

JobReport Supervisor::WithEpilog(JobReport report) const {
  if (!RunEpilog(launch_, wait_status_).ok()) report.set_epilog_failed(true);
  return report;
}

int Supervisor::FailSetup(const Status& st) {
  std::fprintf(stderr, "sluice-stepd: error: job %lld: %s\n", static_cast<long long>(job_id_),
               st.message().c_str());
  if (job_pid_ > 0) {  // the job started; let it be handled normally
    Loop();
    KillLeftovers();
    return Finish(WithEpilog(MakeReport()));
  }
  JobReport r;
  r.set_prolog_failed(prolog_failed_);
  r.set_job_id(job_id_);
  if (launch_.job_id() > 0) r.set_restarts(launch_.job().restarts());
  r.set_finished(true);
  r.set_state(JOB_FAILED);
  r.set_exit_code(kSetupFailedExit);
  r.set_end_time(clock_->Now());
  return Finish(r);
}

}  // namespace sluice
