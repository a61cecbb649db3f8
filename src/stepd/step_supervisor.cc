#include "stepd/step_supervisor.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/clock.h"
#include "common/step_io.h"
#include "node_common/job_dir.h"
#include "stepd/process_tracker.h"
#include "stepd/step_env.h"
#include "stepd/task_scripts.h"
#include "stepd/task_spawn.h"

namespace sluice {
namespace {

int64_t MonoMs() { return RealClock::MonotonicMs(); }

void Log(const std::string& msg) { std::fprintf(stderr, "sluice-stepd: step: %s\n", msg.c_str()); }

Expected<int> ConnectTcp(const std::string& host, int port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) return Unavailable("cannot resolve " + host + ": " + gai_strerror(rc));
  int64_t deadline = MonoMs() + timeout_ms;
  std::string last = "no address";
  while (MonoMs() < deadline) {
    for (addrinfo* a = res; a; a = a->ai_next) {
      int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::freeaddrinfo(res);
        return fd;
      }
      last = std::strerror(errno);
      ::close(fd);
    }
    ::usleep(50'000);
  }
  ::freeaddrinfo(res);
  return Unavailable("cannot connect to srun at " + host + ":" + std::to_string(port) + ": " +
                     last);
}

}  // namespace

StepSupervisor::StepSupervisor(std::string step_dir, StepSupervisorOptions options)
    : dir_(std::move(step_dir)), options_(std::move(options)) {}

StepSupervisor::~StepSupervisor() {
  for (Task& t : tasks_) {
    if (t.out_fd >= 0) ::close(t.out_fd);
    if (t.err_fd >= 0) ::close(t.err_fd);
    if (t.in_fd >= 0) ::close(t.in_fd);
  }
  if (sock_ >= 0) ::close(sock_);
  if (sigfd_ >= 0) ::close(sigfd_);
}

int StepSupervisor::Run() {
  Status st = Start();
  if (!st.ok()) {
    Log(st.message());
    if (sock_ >= 0) {
      for (int rank : launch_.task_ids()) {
        Send(FrameType::kStderr, rank, "slurmstepd: error: " + st.message() + "\n");
        Send(FrameType::kExit, rank, EncodeU32(1 << 8));
      }
      Send(FrameType::kNodeDone, launch_.node_index(), "");
    }
    KillAll();
    if (cgroup_) cgroup_->Remove();
    return 1;
  }
  Loop();
  KillAll();
  if (!srun_gone_) Send(FrameType::kNodeDone, launch_.node_index(), "");
  if (cgroup_) cgroup_->Remove();
  RemoveTree(dir_);
  return 0;
}

Status StepSupervisor::Start() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, StepRelaySignal()}) sigaddset(&mask, s);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  sigfd_ = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd_ < 0) return Internal(std::string("signalfd: ") + std::strerror(errno));
  // The agent recognises its step supervisors by their command line, or else (a title
  // too long to rewrite, see stepd_main.cc) by their working directory.
  if (::chdir(dir_.c_str()) != 0) return Internal("chdir " + dir_ + ": " + std::strerror(errno));
  RETURN_IF_ERROR(ReadProtoFile(dir_ + "/launch.pb", &launch_));
  lease_ = LeaseWatch(launch_.fence_lease());
  RETURN_IF_ERROR(WritePidFile(JobDir(dir_).PidFile(), ::getpid()));  // for a restarted agent
  RETURN_IF_ERROR(Connect());
  // The step's cgroup: inside the job's where the job has one here (the batch host), else
  // one of its own (other nodes, interactive allocations); limited to the step's memory.
  std::string spool = dir_.substr(0, dir_.rfind('/'));
  auto job_cgroup =
      ReadSmallFile(JobDir(spool + "/" + JobDir::NameFor(launch_.job_id())).CgroupFile());
  std::string name = "step_" + std::to_string(launch_.step_id());
  cgroup_ = job_cgroup.ok()
                ? ProcessTracker::CreateStep(*job_cgroup, name)
                : ProcessTracker::Create(launch_.job_id(), options_.cgroups, /*batch_leaf=*/false);
  if (Status st = cgroup_->SetMemoryLimit(launch_.step_mem_mb() << 20); !st.ok()) Log(st.message());
  RETURN_IF_ERROR(cgroup_->DenyDevices(
      options_.cgroups, {launch_.deny_devices().begin(), launch_.deny_devices().end()}));
  user_ = ResolveUser(launch_.job());
  for (int i = 0; i < launch_.task_ids_size(); ++i) {
    Task t;
    t.local_id = i;
    t.rank = launch_.task_ids(i);
    TaskPipes pipes;
    ASSIGN_OR_RETURN(t.pid, SpawnTask(launch_, i, *cgroup_, &pipes, &user_));
    t.out_fd = pipes.out_read;
    t.err_fd = pipes.err_read;
    t.in_fd = pipes.in_write;
    tasks_.push_back(t);
  }
  if (launch_.gpu_sample_interval_s() > 0 && !StepGpus(launch_).empty()) {
    gpu_sampler_.emplace(StepGpus(launch_), launch_.gpu_sample_interval_s(), MonoMs());
  }
  std::string task_list;
  for (const Task& t : tasks_)
    task_list += std::to_string(t.rank) + " " + std::to_string(t.pid) + "\n";
  if (Status st = WriteFileAtomic(JobDir(dir_).TasksFile(), task_list, 0600, false); !st.ok())
    Log(st.message());
  return Status::Ok();
}

Status StepSupervisor::Connect() {
  ASSIGN_OR_RETURN(sock_,
                   ConnectTcp(launch_.io_host(), launch_.io_port(), options_.connect_timeout_ms));
  if (!Send(FrameType::kHello, launch_.node_index(), launch_.io_key())) {
    return Unavailable("srun closed the I/O connection");
  }
  return Status::Ok();
}

bool StepSupervisor::Send(FrameType type, uint32_t task, std::string_view payload) {
  if (sock_ < 0 || srun_gone_) return false;
  if (!WriteAll(sock_, EncodeFrame(type, task, payload))) {
    srun_gone_ = true;
    return false;
  }
  return true;
}

void StepSupervisor::Loop() {
  while (!AllDone()) {
    // srun gone (its connection closed, or a write to it failed): the tasks get SIGTERM
    // and KillWait to finish (a requeue or cancel usually kills srun first, and the
    // tasks' SIGTERM handlers must still run), then SIGKILL; their output is dropped.
    if (srun_gone_ && !srun_gone_handled_) {
      srun_gone_handled_ = true;
      Log("srun went away; SIGTERM to the step's tasks, SIGKILL after " +
          std::to_string(KillWaitMs() / 1000) + " s");
      Terminate();
    }
    std::vector<pollfd> fds{{sigfd_, POLLIN, 0}, {srun_gone_ ? -1 : sock_, POLLIN, 0}};
    for (Task& t : tasks_) {
      if (t.out_fd >= 0) fds.push_back({t.out_fd, POLLIN, 0});
      if (t.err_fd >= 0) fds.push_back({t.err_fd, POLLIN, 0});
      if (t.in_fd >= 0 && !t.in_buf.empty()) fds.push_back({t.in_fd, POLLOUT, 0});
    }
    int timeout = 200;
    if (kill_at_ms_ > 0)
      timeout = static_cast<int>(std::clamp<int64_t>(kill_at_ms_ - MonoMs(), 0, 200));
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
    if (!srun_gone_ && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      if (!ReadSocket()) srun_gone_ = true;
    }
    for (Task& t : tasks_) {
      Pump(&t.out_fd, FrameType::kStdout, t.rank);
      Pump(&t.err_fd, FrameType::kStderr, t.rank);
    }
    for (Task& t : tasks_) FeedStdin(&t);
    if (gpu_sampler_) gpu_sampler_->Tick(MonoMs());
    DrainSignals();
    Reap();
    SendExits(false);
    if (kill_at_ms_ > 0 && MonoMs() >= kill_at_ms_) {
      SignalTasks(SIGKILL);
      kill_at_ms_ = 0;
    }
    if (!fenced_ && lease_.Expired(RealClock().NowMs())) {
      fenced_ = true;
      Log("the node lease ran out (no contact with the controller): SIGKILL to the step's tasks");
      SignalTasks(SIGKILL);
    }
  }
}

int64_t StepSupervisor::KillWaitMs() const {
  if (launch_.has_kill_wait_s()) return std::max(0, launch_.kill_wait_s()) * 1000LL;
  return options_.kill_wait_ms;
}

// SIGTERM to the tasks (once), SIGKILL KillWait later.
void StepSupervisor::Terminate() {
  if (terminating_) return;
  terminating_ = true;
  if (launch_.io_abort_notice()) {  // srun then says "Job step aborted" (older ones cannot)
    Send(FrameType::kAborted, 0, EncodeU32(static_cast<uint32_t>(KillWaitMs() / 1000)));
  }
  SignalTasks(SIGCONT);
  SignalTasks(SIGTERM);
  kill_at_ms_ = MonoMs() + KillWaitMs();
  if (kill_at_ms_ == 0) kill_at_ms_ = 1;
}

// Forwards what is readable on `*fd`; closes it at EOF. False once closed.
bool StepSupervisor::Pump(int* fd, FrameType type, uint32_t rank) {
  if (*fd < 0) return false;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(*fd, buf, sizeof buf);
    if (n > 0) {
      Send(type, rank, std::string_view(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    ::close(*fd);
    *fd = -1;
    return false;
  }
}

bool StepSupervisor::ReadSocket() {
  char buf[4096];
  ssize_t n = ::recv(sock_, buf, sizeof buf, MSG_DONTWAIT);
  if (n == 0) return false;
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  reader_.Append(std::string_view(buf, static_cast<size_t>(n)));
  for (;;) {
    auto f = reader_.Next();
    if (!f.ok()) return false;
    if (!f->has_value()) return true;
    if ((*f)->type == FrameType::kSignal) SignalTasks(static_cast<int>(DecodeU32((*f)->payload)));
    if ((*f)->type == FrameType::kStdin) {
      for (Task& t : tasks_) {
        if (t.rank != static_cast<int>((*f)->task) || t.in_fd < 0) continue;
        if ((*f)->payload.empty()) t.in_eof = true;
        t.in_buf.append((*f)->payload);
        FeedStdin(&t);
      }
    }
  }
}

// Writes what the task's stdin pipe takes now; closes it after EOF (or once it exited).
void StepSupervisor::FeedStdin(Task* t) {
  if (t->in_fd < 0) return;
  while (!t->in_buf.empty()) {
    ssize_t n = ::write(t->in_fd, t->in_buf.data(), t->in_buf.size());
    if (n > 0) {
      t->in_buf.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    t->in_buf.clear();  // EPIPE: the task closed its stdin
    t->in_eof = true;
  }
  if (t->in_eof || t->exited) {
    ::close(t->in_fd);
    t->in_fd = -1;
  }
}

void StepSupervisor::DrainSignals() {
  signalfd_siginfo si;
  while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT || si.ssi_signo == SIGHUP) {
      Terminate();  // job cancel / requeue (the agent), or stepd's own end
    } else if (si.ssi_signo == static_cast<uint32_t>(StepRelaySignal()) && si.ssi_int > 0 &&
               si.ssi_int < NSIG) {
      SignalTasks(si.ssi_int);  // scancel -s / --signal relayed by the agent
    }
  }
}

void StepSupervisor::Reap() {
  int status = 0;
  pid_t p;
  struct rusage ru {};
  while ((p = ::wait4(-1, &status, WNOHANG, &ru)) > 0) {
    for (Task& t : tasks_) {
      if (t.epilog_pid == p) {  // the epilog ended: what it left running goes too
        ::kill(-p, SIGKILL);
        t.epilog_pid = 0;
      }
      if (t.pid != p) continue;
      t.exited = true;
      t.status = status;
      t.exited_ms = MonoMs();
      t.max_rss_kb = ru.ru_maxrss;
      t.cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000LL +
                 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
      StartEpilog(&t);
    }
  }
}

void StepSupervisor::StartEpilog(Task* t) {
  if (launch_.task_epilog().empty() || fenced_) return;
  std::vector<std::string> env = BuildStepTaskEnv(
      launch_, StepTaskContext{launch_.local().node(), t->local_id, t->pid, launch_.work_dir()});
  Expected<pid_t> pid = StartTaskEpilog(launch_.task_epilog(), env, launch_.work_dir(), user_);
  if (!pid.ok()) {
    Log("task epilog: " + pid.status().message());
    return;
  }
  t->epilog_pid = *pid;
  t->epilog_deadline_ms = MonoMs() + kTaskEpilogWaitMs;
}

void StepSupervisor::SendExits(bool force_all) {
  int64_t now = MonoMs();
  for (Task& t : tasks_) {
    if (!t.exited || t.exit_sent) continue;
    bool drained = t.out_fd < 0 && t.err_fd < 0;
    if (!drained && !force_all && now - t.exited_ms < options_.exit_grace_ms) continue;
    if (t.epilog_pid > 0) {  // the exit is reported once the task epilog is done
      if (!force_all && now < t.epilog_deadline_ms) continue;
      ::kill(-t.epilog_pid, SIGKILL);
      t.epilog_pid = 0;
    }
    // A task whose process (or a child's) the kernel OOM-killed: Slurm's words, before the exit.
    if (!oom_reported_ && cgroup_ && t.status != 0 && cgroup_->OomKilled()) {
      Send(FrameType::kStderr, t.rank,
           "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=" +
               std::to_string(launch_.job_id()) + "." + std::to_string(launch_.step_id()) +
               " cgroup. Some of your processes may have been killed by the cgroup out-of-memory "
               "handler.\n");
      oom_reported_ = true;
    }
    // Wait status, then (accounting) max RSS in kB and CPU time in ms, then with this
    // node's last task its GPUs' sampled usage (utilization average and max, memory
    // average and max in MB: step_io.h); older readers decode only what they know.
    auto u32 = [](int64_t v) {
      return EncodeU32(static_cast<uint32_t>(std::clamp<int64_t>(v, 0, UINT32_MAX)));
    };
    std::string payload =
        EncodeU32(static_cast<uint32_t>(t.status)) + u32(t.max_rss_kb) + u32(t.cpu_ms);
    bool last = std::count_if(tasks_.begin(), tasks_.end(),
                              [](const Task& x) { return !x.exit_sent; }) == 1;
    if (last && gpu_sampler_ && gpu_sampler_->Usage().samples() > 0) {
      GpuUsage g = gpu_sampler_->Usage();
      payload +=
          u32(g.util_ave_pct()) + u32(g.util_max_pct()) + u32(g.mem_ave_mb()) + u32(g.mem_max_mb());
    }
    Send(FrameType::kExit, t.rank, payload);
    t.exit_sent = true;
  }
}

bool StepSupervisor::AllDone() const {
  for (const Task& t : tasks_) {
    if (!t.exit_sent) return false;
  }
  return true;
}

void StepSupervisor::SignalTasks(int sig) {
  for (Task& t : tasks_) {
    if (!t.exited && t.pid > 0) ::kill(-t.pid, sig);
  }
}

void StepSupervisor::KillAll() {
  for (Task& t : tasks_) {
    if (t.pid > 0) ::kill(-t.pid, SIGKILL);
  }
  // The stepd is a child subreaper, so every leftover descendant is below one of its
  // children: with no child left (ECHILD) there is nothing to hunt for, and the /proc
  // scan (milliseconds on a busy host, on every step's exit path) is skipped.
  Reap();
  if (!(::waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD)) {
    for (pid_t p : DescendantsOf(::getpid())) ::kill(p, SIGKILL);
  }
  for (Task& t : tasks_) {  // what the leftovers wrote before dying
    Pump(&t.out_fd, FrameType::kStdout, t.rank);
    Pump(&t.err_fd, FrameType::kStderr, t.rank);
  }
  Reap();
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

}  // namespace sluice
