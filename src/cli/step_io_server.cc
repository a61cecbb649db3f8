#include "cli/step_io_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"

namespace sluice {
namespace {

int64_t MonoMs() { return RealClock::MonotonicMs(); }

std::string RankList(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string Describe(int status) {
  if (WIFSIGNALED(status)) {
    const char* s = ::strsignal(WTERMSIG(status));
    return s ? s : "Signal " + std::to_string(WTERMSIG(status));
  }
  return "Exited with exit code " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

Expected<std::unique_ptr<StepIoServer>> StepIoServer::Listen() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Internal(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1024) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::string e = std::strerror(errno);
    ::close(fd);
    return Internal("cannot listen for step I/O: " + e);
  }
  return std::unique_ptr<StepIoServer>(new StepIoServer(fd, ntohs(a.sin_port)));
}

StepIoServer::~StepIoServer() {
  CloseAll();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void StepIoServer::CloseAll() {
  for (auto& c : conns_) {
    if (c->fd >= 0) ::close(c->fd);
    c->fd = -1;
  }
}

std::vector<TaskOutcome> StepIoServer::Run(const StepIoConfig& config, std::ostream* out,
                                           std::ostream* err) {
  cfg_ = &config;
  out_ = out;
  err_ = err;
  tasks_.assign(config.task_nodes.size(), {});
  node_seen_.assign(config.nodes.size(), false);
  label_width_ = static_cast<int>(std::to_string(std::max<size_t>(1, tasks_.size()) - 1).size());
  int64_t connect_deadline = MonoMs() + config.connect_timeout_ms;
  stdin_open_ = config.stdin_fd >= 0 && !config.stdin_ranks.empty();
  while (!Finished() && !aborted_) {
    bool all_nodes = std::all_of(node_seen_.begin(), node_seen_.end(), [](bool b) { return b; });
    int in_fd = stdin_open_ && all_nodes ? config.stdin_fd : -1;
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}, {config.signal_fd, POLLIN, 0}};
    for (auto& c : conns_) fds.push_back({c->fd, POLLIN, 0});
    fds.push_back({in_fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 100);
    if (in_fd >= 0 && (fds.back().revents & (POLLIN | POLLHUP | POLLERR))) ForwardStdin();
    size_t polled = fds.size() - 3;
    if (fds[0].revents & POLLIN) Accept();
    if (config.signal_fd >= 0 && (fds[1].revents & POLLIN)) {
      signalfd_siginfo si;
      while (::read(config.signal_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        HandleSignal(static_cast<int>(si.ssi_signo));
      }
    }
    for (size_t i = 0; i < polled; ++i) {
      Conn* c = conns_[i].get();
      if (c->fd >= 0 && (fds[2 + i].revents & (POLLIN | POLLHUP | POLLERR)) && !ReadConn(c)) {
        ::close(c->fd);
        c->fd = -1;
      }
    }
    std::erase_if(conns_, [](const auto& c) { return c->fd < 0 && c->node < 0; });
    bool all_seen = std::all_of(node_seen_.begin(), node_seen_.end(), [](bool b) { return b; });
    if (!all_seen && MonoMs() > connect_deadline) {
      *err_ << "srun: error: timed out waiting for the tasks of " << config.step_name
            << " to start\n";
      aborted_ = true;
    }
    if (config.wait_s > 0 && first_end_ms_ > 0 && MonoMs() > first_end_ms_ + config.wait_s * 1000) {
      *err_ << "srun: First task exited " << config.wait_s << "s ago\n";
      ReportTaskStates();
      *err_ << "srun: Terminating " << config.step_name << "\n";
      // srun ends the step: the tasks still running are killed (reported "Killed").
      for (TaskOutcome& t : tasks_)
        if (!t.ended) t = {true, SIGKILL};
      aborted_ = true;
    }
  }
  for (uint32_t r = 0; r < tasks_.size(); ++r) FlushTask(r);
  CloseAll();  // the nodes kill whatever is left
  out_->flush();
  err_->flush();
  return tasks_;
}

void StepIoServer::Accept() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    conns_.push_back(std::move(c));
  }
}

bool StepIoServer::ReadConn(Conn* c) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(c->fd, buf, sizeof buf, 0);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c->reader.Append(std::string_view(buf, static_cast<size_t>(n)));
    for (;;) {
      auto f = c->reader.Next();
      if (!f.ok()) return false;
      if (!f->has_value()) break;
      const Frame& frame = **f;
      if (c->node < 0) {
        if (frame.type != FrameType::kHello || frame.payload != cfg_->key ||
            frame.task >= node_seen_.size() || node_seen_[frame.task]) {
          return false;  // not one of ours
        }
        c->node = static_cast<int>(frame.task);
        if (cfg_->trace && std::count(node_seen_.begin(), node_seen_.end(), true) == 0) {
          cfg_->trace("first node connected");
        }
        node_seen_[frame.task] = true;
        continue;
      }
      HandleFrame(c, frame);
    }
  }
}

void StepIoServer::HandleFrame(Conn* c, const Frame& f) {
  switch (f.type) {
    case FrameType::kStdout:
    case FrameType::kStderr:
      if (f.task < tasks_.size()) Output(f.task, f.type == FrameType::kStderr, f.payload);
      break;
    case FrameType::kExit: {
      if (f.task >= tasks_.size()) break;
      FlushTask(f.task);
      tasks_[f.task] = {true, static_cast<int>(DecodeU32(f.payload))};
      if (f.payload.size() >= 12) {
        tasks_[f.task].max_rss_kb = DecodeU32(std::string_view(f.payload).substr(4));
        tasks_[f.task].cpu_ms = DecodeU32(std::string_view(f.payload).substr(8));
      }
      if (f.payload.size() >= 28) {
        TaskOutcome& t = tasks_[f.task];
        std::string_view p(f.payload);
        t.gpu_util_ave = DecodeU32(p.substr(12));
        t.gpu_util_max = DecodeU32(p.substr(16));
        t.gpu_mem_ave_mb = DecodeU32(p.substr(20));
        t.gpu_mem_max_mb = DecodeU32(p.substr(24));
      }
      if (first_end_ms_ == 0 && cfg_->trace) cfg_->trace("first task exit");
      if (first_end_ms_ == 0) first_end_ms_ = MonoMs();
      int st = tasks_[f.task].wait_status;
      bool bad = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
      if (bad && cfg_->kill_on_bad_exit) {
        *err_ << "srun: error: " << cfg_->nodes[cfg_->task_nodes[f.task]] << ": task " << f.task
              << ": " << Describe(st) << "\nsrun: Terminating " << cfg_->step_name << "\n";
        aborted_ = true;
      }
      break;
    }
    case FrameType::kNodeDone:
      c->done = true;
      break;
    case FrameType::kAborted:
      if (!told_step_aborted_ && f.payload.size() >= 4) {
        told_step_aborted_ = true;
        *err_ << "srun: Job step aborted: Waiting up to " << DecodeU32(f.payload) + 2
              << " seconds for job step to finish.\n";
        err_->flush();
      }
      break;
    default:
      break;
  }
}

// One read of srun's stdin, sent to every stdin task's node; EOF sends an empty kStdin.
void StepIoServer::ForwardStdin() {
  char buf[65536];
  ssize_t n = ::read(cfg_->stdin_fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  std::string_view data(buf, n > 0 ? static_cast<size_t>(n) : 0);
  if (n <= 0) stdin_open_ = false;
  for (int rank : cfg_->stdin_ranks) {
    if (rank < 0 || rank >= static_cast<int>(cfg_->task_nodes.size())) continue;
    std::string frame = EncodeFrame(FrameType::kStdin, static_cast<uint32_t>(rank), data);
    for (auto& c : conns_) {
      if (c->fd >= 0 && c->node == cfg_->task_nodes[rank]) WriteAll(c->fd, frame);
    }
  }
}

void StepIoServer::Output(uint32_t rank, bool is_err, std::string_view data) {
  std::ostream* os = is_err ? err_ : out_;
  if (cfg_->sink) {
    if (std::ostream* s = cfg_->sink(rank, is_err)) os = s;
  }
  std::string prefix;
  if (cfg_->label) {
    std::string r = std::to_string(rank);
    prefix = std::string(label_width_ - std::min<int>(label_width_, r.size()), ' ') + r + ": ";
  }
  if (cfg_->unbuffered) {
    *os << prefix << data;
    os->flush();
    return;
  }
  std::string& buf = partial_[{rank, is_err}];
  buf.append(data);
  size_t start = 0, nl;
  while ((nl = buf.find('\n', start)) != std::string::npos) {
    *os << prefix << std::string_view(buf).substr(start, nl + 1 - start);
    start = nl + 1;
  }
  if (start > 0) {
    buf.erase(0, start);
    os->flush();
  }
}

void StepIoServer::FlushTask(uint32_t rank) {
  for (bool is_err : {false, true}) {
    auto it = partial_.find({rank, is_err});
    if (it == partial_.end() || it->second.empty()) continue;
    std::string rest = std::move(it->second);
    partial_.erase(it);
    Output(rank, is_err, rest + "\n");
  }
}

void StepIoServer::Broadcast(int sig) {
  std::string frame = EncodeFrame(FrameType::kSignal, 0, EncodeU32(static_cast<uint32_t>(sig)));
  for (auto& c : conns_) {
    if (c->fd >= 0 && c->node >= 0) WriteAll(c->fd, frame);
  }
}

void StepIoServer::HandleSignal(int sig) {
  if (sig != SIGINT) {
    Broadcast(sig);
    return;
  }
  if (cfg_->quit_on_interrupt) {
    *err_ << "srun: forcing job termination\n";
    err_->flush();
    Broadcast(SIGKILL);
    return;
  }
  int64_t now = MonoMs();
  if (last_sigint_ms_ > 0 && now - last_sigint_ms_ <= 1000) {
    *err_ << "srun: sending Ctrl-C to " << cfg_->step_name << "\n";
    Broadcast(SIGINT);
    last_sigint_ms_ = 0;
    return;
  }
  last_sigint_ms_ = now;
  *err_ << "srun: interrupt (one more within 1 sec to abort)\n";
  ReportTaskStates();
  err_->flush();
}

void StepIoServer::ReportTaskStates() {
  std::vector<int> running, done;
  for (size_t r = 0; r < tasks_.size(); ++r)
    (tasks_[r].ended ? done : running).push_back(static_cast<int>(r));
  auto line = [&](const std::vector<int>& ranks, const char* what) {
    if (ranks.empty()) return;
    *err_ << "srun: " << cfg_->step_name << (ranks.size() > 1 ? " tasks " : " task ")
          << RankList(ranks) << ": " << what << "\n";
  };
  line(running, "running");
  line(done, "exited");
}

bool StepIoServer::Finished() const {
  if (conns_.empty() ||
      !std::all_of(node_seen_.begin(), node_seen_.end(), [](bool b) { return b; })) {
    return false;
  }
  for (const auto& c : conns_) {
    if (c->node >= 0 && c->fd >= 0 && !c->done) return false;
  }
  return true;
}

std::string LaunchReport(const std::string& step_name, const std::vector<std::string>& nodes,
                         const std::vector<int>& task_nodes) {
  std::string out;
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::vector<int> ranks;
    for (size_t r = 0; r < task_nodes.size(); ++r)
      if (task_nodes[r] == static_cast<int>(n)) ranks.push_back(static_cast<int>(r));
    std::string list = RankList(ranks);
    if (ranks.size() > 1) list = "[" + list + "]";
    out += "srun: launching " + step_name + " on host " + nodes[n] + ", " +
           std::to_string(ranks.size()) + " tasks: " + list + "\n";
  }
  return out;
}

int ReportTaskOutcomes(const std::vector<TaskOutcome>& tasks, const std::vector<std::string>& nodes,
                       const std::vector<int>& task_nodes, std::ostream* err) {
  int rc = 0;
  // (node, description) -> ranks, in rank order of first appearance
  std::vector<std::pair<std::pair<int, std::string>, std::vector<int>>> groups;
  for (size_t r = 0; r < tasks.size(); ++r) {
    int node = r < task_nodes.size() ? task_nodes[r] : 0;
    std::string what;
    int code = 0;
    if (!tasks[r].ended) {
      what = "Unknown status (the node lost contact)";
      code = 1;
    } else {
      int st = tasks[r].wait_status;
      code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
      if (code != 0) what = Describe(st);
    }
    rc = std::max(rc, code);
    if (what.empty()) continue;
    auto key = std::make_pair(node, what);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end())
      groups.push_back({key, {static_cast<int>(r)}});
    else
      it->second.push_back(static_cast<int>(r));
  }
  for (const auto& [key, ranks] : groups) {
    std::string node = key.first < static_cast<int>(nodes.size()) ? nodes[key.first] : "?";
    *err << "srun: error: " << node << ": task" << (ranks.size() > 1 ? "s " : " ")
         << RankList(ranks) << ": " << key.second << "\n";
  }
  return rc;
}

}  // namespace sluice
