// Job steps on the node agent: LaunchTasks starts one `sluice-stepd --step` per step
// (see stepd/step_supervisor.h); Relay forwards srun's calls (client_relay.h);
// SignalSteps relays job cancels to them; ReportSteps
// tells a (restarted) controller which steps hold what here; AdoptSteps finds the steps
// an earlier instance of this agent started (their stepd.pid).
#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/step_io.h"
#include "node_common/job_dir.h"
#include "node_common/proc_usage.h"
#include "noded/agent.h"
#include "noded/gpu_detect.h"

namespace sluice {
namespace {

// Whether `pid` is the supervisor of step directory `dir`: its command line has
// `--step <dir>`, or it works in `dir`, or it is a prestarted stepd this agent handed
// `dir` to that has not rewritten its command line (`sluice-stepd --wait ...`) yet.
bool IsStepSupervisor(pid_t pid, const std::string& dir, bool own_child) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::string proc = "/proc/" + std::to_string(pid);
  auto cmdline = ReadSmallFile(proc + "/cmdline");
  if (!cmdline.ok()) return false;
  if (cmdline->find(std::string("--step") + '\0' + dir + '\0') != std::string::npos) return true;
  std::error_code ec;
  if (std::filesystem::read_symlink(proc + "/cwd", ec) == dir) return true;
  return own_child && cmdline->find(std::string_view("\0--wait\0", 8)) != std::string::npos;
}

// A step's directory under the spool: "step.<job>.<step>".
std::string StepDirName(int64_t job_id, int32_t step_id) {
  return fmt::format("step.{}.{}", job_id, step_id);
}

Status ValidateStep(const StepLaunch& l, const std::string& node) {
  if (l.job_id() <= 0 || l.step_id() < 0) return InvalidArgument("step launch has no job/step id");
  if (l.argv_size() == 0) return InvalidArgument("step launch has no command");
  if (l.task_ids_size() == 0) return InvalidArgument("step launch has no tasks for this node");
  if (!l.local().node().empty() && l.local().node() != node) {
    return InvalidArgument(fmt::format("step for node {} sent to node {}", l.local().node(), node));
  }
  return Status::Ok();
}

}  // namespace

LaunchTasksReply Agent::LaunchTasks(StepLaunch launch) {
  LaunchTasksReply reply;
  Status st = NotFenced();
  if (st.ok()) st = ValidateStep(launch, options_.node_name);
  if (st.ok()) st = StepProlog(launch);  // non-batch nodes: before the job's first step here
  if (st.ok()) {
    launch.mutable_local()->set_node(options_.node_name);
    launch.set_cluster_name(options_.cluster_name);
    launch.set_conf_path(options_.conf_path);
    launch.set_ctld_host(options_.ctld_host);
    launch.set_ctld_port(options_.ctld_port);
    launch.set_relay_socket(options_.relay_socket);
    launch.set_fence_lease(options_.fence_lease);
    launch.set_gpu_sample_interval_s(options_.gpu_sample_interval_s);
    if (std::any_of(options_.gpus.begin(), options_.gpus.end(),
                    [](const GpuInfo& g) { return !g.cores().empty(); })) {
      for (const GpuInfo& g : options_.gpus) launch.add_gpu_cpus(g.cores());
    }
    if (options_.constrain_devices) {
      const auto& given =
          launch.step_resources() ? launch.step_gpu_ids() : launch.local().gpu_ids();
      for (std::string& f : OtherGpuFiles(options_.gpus, given))
        launch.add_deny_devices(std::move(f));
    }
    std::string dir = jobs_->spool() + "/" + StepDirName(launch.job_id(), launch.step_id());
    std::lock_guard<std::mutex> lock(mu_);
    if (given_up_steps_.Contains({launch.job_id(), launch.step_id()})) {
      st = FailedPrecondition(fmt::format("step {}.{} was given up by the controller",
                                          launch.job_id(), launch.step_id()));
    } else if (::mkdir(dir.c_str(), 0700) != 0) {
      // Already there: a retried launch of a running step is acknowledged.
      if (errno != EEXIST) st = Internal(fmt::format("mkdir {}: {}", dir, std::strerror(errno)));
    } else {
      st = WriteProtoFile(dir + "/launch.pb", launch, 0600, false);
      if (st.ok()) {
        const int64_t spawn_us = RealClock::MonotonicUs();
        auto pid = launcher_->SpawnStep(dir);
        CountSpawn(pid.ok(), spawn_us);
        if (pid.ok()) steps_.emplace(launch.job_id(), StepProc{*pid, dir});
        st = pid.status();
      }
      if (!st.ok()) RemoveTree(dir);
    }
  }
  reply.set_ok(st.ok());
  if (!st.ok()) reply.set_error(st.message());
  return reply;
}

RelayReply Agent::Relay(RelayRequest req) {
  req.set_node(options_.node_name);
  if (req.has_launch_step() && req.launch_step().io_host().empty()) {
    // srun runs here: the step nodes reach it at this node's route toward the controller.
    req.mutable_launch_step()->set_io_host(LocalAddressToward(options_.ctld_host));
  }
  return controller_->Relay(std::move(req));
}

AgentStepUsageReply Agent::StepUsage(int64_t job_id, int32_t step_id) {
  AgentStepUsageReply reply;
  if (step_id < 0 || ForEachStep(job_id, step_id, [](pid_t) { return true; }) == 0) {
    reply.set_error(fmt::format("step {}.{} is not running here", job_id, step_id));
    return reply;
  }
  JobDir dir(jobs_->spool() + "/" + StepDirName(job_id, step_id));
  auto text = ReadSmallFile(dir.TasksFile());
  std::vector<std::pair<int, pid_t>> tasks;  // rank, pid (= its group)
  std::istringstream in(text.ok() ? *text : std::string());
  for (int rank = 0, pid = 0; in >> rank >> pid;) tasks.emplace_back(rank, pid);
  std::vector<pid_t> groups;
  for (const auto& t : tasks) groups.push_back(t.second);
  std::map<pid_t, ProcessUsage> used = SampleProcessGroups(groups);
  for (const auto& [rank, pid] : tasks) {
    auto it = used.find(pid);
    if (it == used.end()) continue;  // ended
    TaskUsage* u = reply.add_tasks();
    u->set_node(options_.node_name);
    u->set_rank(rank);
    u->set_rss_kb(it->second.rss_kb);
    u->set_vsize_kb(it->second.vsize_kb);
    u->set_cpu_ms(it->second.cpu_ms);
    u->set_pages(it->second.pages);
    u->set_read_bytes(it->second.read_bytes);
    u->set_write_bytes(it->second.write_bytes);
    for (pid_t p : it->second.pids) u->add_pids(p);
  }
  return reply;
}

int Agent::ForEachStep(int64_t job_id, int32_t step_id, const std::function<bool(pid_t)>& fn) {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  auto [begin, end] = steps_.equal_range(job_id);
  const std::string suffix = "/" + StepDirName(job_id, step_id);
  for (auto it = begin; it != end;) {
    const std::string& dir = it->second.dir;
    if (step_id >= 0 && (dir.size() < suffix.size() ||
                         dir.compare(dir.size() - suffix.size(), suffix.size(), suffix) != 0)) {
      ++it;
    } else if (IsStepSupervisor(it->second.pid, it->second.dir,
                                launcher_->IsChild(it->second.pid))) {
      n += fn(it->second.pid) ? 1 : 0;
      ++it;
    } else {
      it = steps_.erase(it);
    }
  }
  return n;
}

void Agent::SignalSteps(int64_t job_id, int sig, int32_t step_id) {
  ForEachStep(job_id, step_id, [sig](pid_t pid) { return ::kill(pid, sig) == 0; });
}

void Agent::KillGivenUpStep(int64_t job_id, int32_t step_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    given_up_steps_.Insert({job_id, step_id});
  }
  SignalSteps(job_id, SIGKILL, step_id);
  std::fprintf(stderr, "sluiced: killed step %lld.%d: given up by the controller\n",
               static_cast<long long>(job_id), step_id);
}

void Agent::AdoptSteps() {
  std::lock_guard<std::mutex> lock(mu_);
  DIR* d = ::opendir(jobs_->spool().c_str());
  if (d == nullptr) return;
  while (struct dirent* e = ::readdir(d)) {
    if (std::string_view(e->d_name).rfind("step.", 0) != 0) continue;
    std::string dir = jobs_->spool() + "/" + e->d_name;
    StepLaunch l;
    auto pid = ReadPidFile(JobDir(dir).PidFile());
    if (!pid.ok() || !IsStepSupervisor(*pid, dir, false) ||
        !ReadProtoFile(dir + "/launch.pb", &l).ok())
      continue;
    auto [begin, end] = steps_.equal_range(l.job_id());
    bool known = std::any_of(begin, end, [&](const auto& kv) { return kv.second.dir == dir; });
    if (!known) steps_.emplace(l.job_id(), StepProc{*pid, dir});
  }
  ::closedir(d);
}

void Agent::ReportSteps(RegisterNodeRequest* req) {
  if (!steps_adopted_) {  // steps started by an earlier instance of this agent
    AdoptSteps();
    steps_adopted_ = true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [job_id, proc] : steps_) {
    StepLaunch l;
    if (!IsStepSupervisor(proc.pid, proc.dir, launcher_->IsChild(proc.pid)) ||
        !ReadProtoFile(proc.dir + "/launch.pb", &l).ok())
      continue;
    RunningStep* r = req->add_running_steps();
    r->set_job_id(l.job_id());
    r->set_step_id(l.step_id());
    *r->mutable_cpu_ids() = l.step_cpu_ids();
    *r->mutable_gpu_ids() = l.step_gpu_ids();
    r->set_mem_mb(l.step_mem_mb());
    r->set_name(l.step_name());
    r->set_start_time(l.step_start_time());
    r->set_ntasks(l.ntasks());
    r->set_overlap(l.step_overlap());
  }
}

}  // namespace sluice
