// Accounting glue of the Controller: every committed job change becomes the upsert of
// its attempt's record (plus its batch step, and the close of older attempts after a
// requeue); srun steps are recorded when created and when srun reports their end (or
// when their job ends). Everything is posted to the AcctWriter queue; the owner thread
// never touches the accounting database. AcctLive serves sacct's live part.
#include <algorithm>

#include "acct/job_records.h"
#include "common/hostlist.h"
#include "ctld/controller.h"

namespace sluice::ctld {

void Controller::AcctJobCommitted(const JobInfo& job) {
  if (!acct_) return;
  std::vector<acct::AcctOp> ops;
  int64_t id = job.job_id();
  if (job.restarts() > 0) {
    ops.push_back(acct::AcctCloseAttempts{id, job.restarts(),
                                          job.eligible_time() > 0 ? job.eligible_time() : Now()});
  }
  ops.push_back(acct::JobRecordOf(job));
  auto usage = acct_batch_usage_.find(id);
  int64_t rss = usage == acct_batch_usage_.end() ? -1 : usage->second.first;
  int64_t cpu = usage == acct_batch_usage_.end() ? -1 : usage->second.second;
  if (auto batch = acct::BatchStepOf(job, rss, cpu)) ops.push_back(*batch);
  auto open = acct_open_steps_.find(id);
  if (open != acct_open_steps_.end()) {
    bool ended = IsTerminal(job.state()) && !job.completing();
    for (auto it = open->second.begin(); it != open->second.end();) {
      acct::AcctStepRecord& s = it->second;
      if (s.attempt != job.restarts()) {  // closed by AcctCloseAttempts
        it = open->second.erase(it);
        continue;
      }
      if (ended) {
        s.state = job.state() == JOB_COMPLETED ? JOB_COMPLETED : acct::StepEndState(job.state());
        s.end_time = job.end_time() > 0 ? job.end_time() : Now();
        ops.push_back(s);
        it = open->second.erase(it);
        continue;
      }
      ++it;
    }
    if (open->second.empty()) acct_open_steps_.erase(open);
  }
  if (IsTerminal(job.state()) && !job.completing()) acct_batch_usage_.erase(id);
  acct_->Post(std::move(ops));
}

void Controller::AcctStepStarted(const JobInfo& job, const ActiveStep& step) {
  if (!acct_) return;
  acct::AcctStepRecord s;
  s.job_id = job.job_id();
  s.attempt = job.restarts();
  s.step_id = step.step_id;
  s.name = step.name;
  std::vector<std::string> hosts;
  int64_t cpus = 0, gpus = 0, mem = 0;
  std::string type;
  for (const StepNodeUse& u : step.use) {
    hosts.push_back(u.node);
    cpus += static_cast<int64_t>(u.cpu_ids.size());
    gpus += static_cast<int64_t>(u.gpu_ids.size());
    for (const auto& a : job.alloc()) {
      if (a.node() == u.node) {
        mem += a.mem_mb();
        if (type.empty()) type = a.gpu_type();
      }
    }
  }
  s.nodes = CompressHostlist(hosts);
  s.nnodes = static_cast<int32_t>(hosts.size());
  s.ntasks = step.ntasks;
  s.alloc_cpus = static_cast<int32_t>(cpus);
  s.state = JOB_RUNNING;
  s.start_time = step.start_time;
  s.alloc_tres = acct::TresString(cpus, mem, gpus, type, s.nnodes, false);
  acct_open_steps_[s.job_id][s.step_id] = s;
  if (acct_) acct_->Post({s});
}

void Controller::AcctStepEnded(int64_t job_id, int step_id, const KeepaliveRequest& req) {
  auto open = acct_open_steps_.find(job_id);
  if (open == acct_open_steps_.end()) return;
  auto it = open->second.find(step_id);
  if (it == open->second.end()) return;
  acct::AcctStepRecord s = it->second;
  open->second.erase(it);
  if (open->second.empty()) acct_open_steps_.erase(open);
  s.end_time = Now();
  s.state = JOB_COMPLETED;
  for (const AcctStepEnd& e : req.acct_step_ends()) {
    if (e.step_id() != step_id) continue;
    s.exit_code = e.exit_code();
    s.term_signal = e.term_signal();
    if (e.term_signal() != 0) {
      s.state = JOB_CANCELLED;
    } else if (e.exit_code() != 0) {
      s.state = JOB_FAILED;
    }
    if (e.max_rss_kb() >= 0) s.max_rss_kb = e.max_rss_kb();
    if (e.total_cpu_us() >= 0) s.total_cpu_us = e.total_cpu_us();
  }
  if (acct_) acct_->Post({s});
}

void Controller::AcctResync() {
  for (const auto& [id, job] : jobs_.jobs()) AcctJobCommitted(job);
  NodeEventsResync();
}

AcctJobsReply Controller::AcctLive(const AcctJobsRequest& req) const {
  AcctJobsReply reply;
  for (const auto& [id, job] : jobs_.jobs()) {
    if (req.job_ids_size() > 0 &&
        std::find(req.job_ids().begin(), req.job_ids().end(), id) == req.job_ids().end() &&
        std::find(req.job_ids().begin(), req.job_ids().end(), job.array_job_id()) ==
            req.job_ids().end()) {
      continue;
    }
    if (req.end() > 0 && job.submit_time() > req.end()) continue;
    if (req.start() > 0 && job.end_time() > 0 && job.end_time() < req.start()) continue;
    *reply.add_jobs() = acct::ToProto(acct::JobRecordOf(job));
    auto usage = acct_batch_usage_.find(id);
    int64_t rss = usage == acct_batch_usage_.end() ? -1 : usage->second.first;
    int64_t cpu = usage == acct_batch_usage_.end() ? -1 : usage->second.second;
    if (auto batch = acct::BatchStepOf(job, rss, cpu)) *reply.add_steps() = acct::ToProto(*batch);
    auto open = acct_open_steps_.find(id);
    if (open != acct_open_steps_.end()) {
      for (const auto& [sid, s] : open->second) {
        if (s.attempt == job.restarts()) *reply.add_steps() = acct::ToProto(s);
      }
    }
  }
  return reply;
}

}  // namespace sluice::ctld
