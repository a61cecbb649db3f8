// Job steps (srun) and interactive allocations (salloc, standalone srun) of the
// Controller: CreateStep records step JOBID.N (step ids are journaled with the job in
// blocks of kStepIdBlock, so most steps launch without waiting for a disk write), plans the task
// layout (step_layout.h), picks MASTER_PORT and queues one LaunchTasks per step node, sent in
// parallel after the commit; ReleaseAllocation ends an interactive allocation when its salloc/srun
// exits.
#include <fmt/format.h>

#include <random>

#include "common/text_util.h"
#include "ctld/components/step_layout.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {
namespace {

constexpr int kMasterPortBase = 20000;  // below the usual ephemeral range
constexpr int kStepIdBlock = 32;        // step ids journaled per write
constexpr int kMasterPortSpan = 10000;

bool TorchEnvEnabled(const Config& config) {
  auto it = config.raw.find("SrunTorchEnv");
  if (it == config.raw.end()) return true;
  std::string v = ToLower(it->second);
  return !(v == "no" || v == "0" || v == "false" || v == "off");
}

void FillLaunch(const JobInfo& job, const StepRequest& req, const StepLayout& l, int step_id,
                int kill_wait_s, StepLaunch* s) {
  s->set_job_id(job.job_id());
  s->set_kill_wait_s(kill_wait_s);
  s->set_step_id(step_id);
  *s->mutable_job() = job;
  for (const std::string& n : l.nodes) s->add_step_nodes(n);
  for (int c : l.tasks_per_node) s->add_tasks_per_node(c);
  s->set_ntasks(l.ntasks);
  for (const auto& a : req.argv()) s->add_argv(a);
  for (const auto& e : req.env()) s->add_env(e);
  s->set_work_dir(req.work_dir());
  s->set_io_host(req.io_host());
  s->set_io_port(req.io_port());
  s->set_io_key(req.io_key());
  s->set_launch_node_ipaddr(req.io_host());
  s->set_cpus_per_task(req.cpus_per_task());
  s->set_gpus_per_task(req.gpus_per_task());
  s->set_distribution(req.distribution());
  s->set_ntasks_per_node(l.ntasks_per_node);
  for (int r : req.stdin_ranks()) s->add_stdin_ranks(r);
  s->set_input_pattern(req.input_pattern());
  s->set_task_prolog(req.task_prolog());
  s->set_task_epilog(req.task_epilog());
  *s->mutable_rlimits() = req.rlimits();
  s->set_io_abort_notice(req.io_abort_notice());
}

}  // namespace

Expected<StepStart> Controller::CreateStep(const Caller& caller, const StepRequest& req) {
  JobInfo* job = jobs_.Find(req.job_id());
  RETURN_IF_ERROR(CheckOwner(caller, job));
  if (job->state() == JOB_PENDING) {
    return FailedPrecondition(fmt::format("Job {} is pending execution", req.job_id()));
  }
  if (job->state() != JOB_RUNNING || job->completing()) {
    return FailedPrecondition(kMsgAlreadyDone);
  }
  if (req.argv_size() == 0) return InvalidArgument("No command given to execute");
  if (req.io_port() <= 0 || req.io_host().empty())
    return InvalidArgument("No I/O address for the step");
  const std::vector<ActiveStep> running = steps_.Running(job->job_id());
  ASSIGN_OR_RETURN(
      StepLayout layout,
      PlanStepLayout(*job, req,
                     req.overlap() ? std::set<std::string>{} : FullyHeldNodes(*job, running)));
  ASSIGN_OR_RETURN(std::vector<StepNodeUse> use, PickStepResources(*job, layout, req, running));
  int step_id = job->next_step_id();
  job->set_next_step_id(step_id + 1);
  if (job->next_step_id() > job->step_ids_reserved()) {
    job->set_step_ids_reserved(step_id + kStepIdBlock);
    MarkJob(job->job_id());
  }

  if (step_seed_ == 0) step_seed_ = std::random_device{}() | 1;
  step_seed_ = step_seed_ * 6364136223846793005ULL + 1442695040888963407ULL;
  int master_port = kMasterPortBase + static_cast<int>((step_seed_ >> 33) % kMasterPortSpan);
  std::vector<std::string> addrs;
  for (const std::string& n : layout.nodes) addrs.push_back(AddressOf(n).host);

  StepStart start;
  StepReply& reply = start.reply;
  reply.set_step_id(step_id);
  for (const std::string& n : layout.nodes) reply.add_nodes(n);
  for (int c : layout.tasks_per_node) reply.add_tasks_per_node(c);
  for (int n : layout.task_node) reply.add_task_nodes(n);
  reply.set_ntasks(layout.ntasks);
  reply.set_master_addr(addrs.front());
  reply.set_master_port(master_port);
  start.latch = std::make_shared<LaunchLatch>(static_cast<int>(layout.nodes.size()));

  ActiveStep active;
  active.step_id = step_id;
  active.name = req.name();
  active.start_time = Now();
  active.last_seen_ms = clock_->NowMs();
  active.overlap = req.overlap();
  active.ntasks = layout.ntasks;
  active.use = use;
  const ActiveStep& placed = steps_.Add(job->job_id(), std::move(active));
  acct_.StepStarted(*job, placed);

  bool torch = TorchEnvEnabled(config_);
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    LaunchTasksRequest lreq;
    StepLaunch* s = lreq.mutable_launch();
    FillLaunch(*job, req, layout, step_id, config_.kill_wait_s, s);
    *s->mutable_local() = job->alloc(layout.alloc_index[i]);
    s->set_node_index(static_cast<int>(i));
    s->set_step_resources(true);
    for (int c : use[i].cpu_ids) s->add_step_cpu_ids(c);
    for (int g : use[i].gpu_ids) s->add_step_gpu_ids(g);
    s->set_step_mem_mb(use[i].mem_mb);
    s->set_step_name(placed.name);
    s->set_step_start_time(placed.start_time);
    s->set_step_overlap(req.overlap());
    s->set_cpu_bind(req.cpu_bind());
    s->set_gpu_bind(req.gpu_bind());
    for (int t : layout.task_ids[i]) s->add_task_ids(t);
    s->set_master_addr(addrs.front());
    s->set_master_port(master_port);
    s->set_pytorch_env(torch);
    for (const std::string& a : addrs) s->add_step_node_addrs(a);
    AgentAddress to = AddressOf(layout.nodes[i]);
    std::shared_ptr<LaunchLatch> latch = start.latch;
    SendAfterCommit(
        [this, to, lreq = std::move(lreq), latch, job_id = job->job_id(), step_id]() mutable {
          agents_->LaunchTasks(
              to, std::move(lreq), [this, latch, node = to.node, job_id, step_id](Status st) {
                latch->Done(node, st.ok() ? "" : st.message());
                // The tasks may have started there although srun counts the launch failed.
                if (st.code() == Code::kUnknown) {
                  OnOwner([this, node, job_id, step_id] { KillStepOn(node, job_id, step_id); });
                }
              });
        });
  }
  return start;
}

void Controller::KillStepOn(const std::string& node, int64_t job_id, int32_t step_id) {
  SignalJobRequest req;
  req.set_job_id(job_id);
  req.set_kind(SIGNAL_KILL_STALE);
  req.set_step_id(step_id);
  SendSignalRequest(node, std::move(req));
}

Status Controller::CheckRelay(const std::string& node, int64_t job_id) const {
  const JobInfo* job = jobs_.Find(job_id);
  if (job == nullptr) return Status::Ok();
  for (const NodeAlloc& a : job->alloc()) {
    if (a.node() == node) return Status::Ok();
  }
  return PermissionDenied(fmt::format("Node {} is not part of job {}'s allocation", node, job_id));
}

Status Controller::ReleaseAllocation(const Caller& caller, const ReleaseAllocationRequest& req) {
  JobInfo* job = jobs_.Find(req.job_id());
  RETURN_IF_ERROR(CheckOwner(caller, job));
  if (!job->spec().interactive()) {
    return InvalidArgument(fmt::format("Job {} is not an interactive allocation", req.job_id()));
  }
  if (job->state() == JOB_PENDING) {
    job->set_cancelled_by(job->uid());  // released by its owner's salloc/srun
    FinishJob(job, JOB_CANCELLED, 0, 0);
    return Status::Ok();
  }
  if (job->state() != JOB_RUNNING) return Status::Ok();  // already ended (cancel, time limit)
  SendSignal(*job, SIGNAL_CANCEL, 0, true);  // steps left behind (salloc's background srun)
  FinishJob(job, req.exit_code() == 0 ? JOB_COMPLETED : JOB_FAILED, req.exit_code(), 0);
  return Status::Ok();
}

}  // namespace sluice::ctld
