#include "ctld/components/acct_feed.h"

#include "acct/job_records.h"
#include "common/hostlist.h"

namespace sluice::ctld {
namespace {

struct Wanted {
  bool known = false;
  std::string state;
  std::string reason;
};

Wanted WantedOf(const NodeRuntime& n, const std::set<std::string>& maint) {
  if (maint.count(n.cfg.name)) return {true, "MAINT", "Reserved for maintenance"};
  if (n.admin.down) return {true, "DOWN", n.admin.reason};
  if (!n.responding) return {true, "DOWN", "Not responding"};
  if (n.admin.drain) return {true, "DRAIN", n.admin.reason};
  if (!n.registered) return {};
  return {true, "", ""};
}

}  // namespace

acct::StepUsage AcctFeed::UsageOf(int64_t job_id) const {
  auto it = batch_usage_.find(job_id);
  return it == batch_usage_.end() ? acct::StepUsage{} : it->second;
}

void AcctFeed::JobCommitted(const JobInfo& job) {
  if (!sink_) return;
  std::vector<acct::AcctOp> ops;
  int64_t id = job.job_id();
  if (job.restarts() > 0) {
    ops.push_back(acct::AcctCloseAttempts{id, job.restarts(),
                                          job.eligible_time() > 0 ? job.eligible_time() : Now()});
  }
  ops.push_back(acct::JobRecordOf(job));
  if (auto batch = acct::BatchStepOf(job, UsageOf(id))) ops.push_back(*batch);
  bool ended = IsTerminal(job.state()) && !job.completing();
  auto open = open_steps_.find(id);
  if (open != open_steps_.end()) {
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
    if (open->second.empty()) open_steps_.erase(open);
  }
  if (ended) batch_usage_.erase(id);
  sink_->Post(std::move(ops));
}

void AcctFeed::StepStarted(const JobInfo& job, const ActiveStep& step) {
  if (!sink_) return;
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
  open_steps_[s.job_id][s.step_id] = s;
  sink_->Post({s});
}

void AcctFeed::StepEnded(int64_t job_id, int step_id, const KeepaliveRequest& req) {
  auto open = open_steps_.find(job_id);
  if (open == open_steps_.end()) return;
  auto it = open->second.find(step_id);
  if (it == open->second.end()) return;
  acct::AcctStepRecord s = it->second;
  open->second.erase(it);
  if (open->second.empty()) open_steps_.erase(open);
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
    if (!e.tres_usage_in_ave().empty()) s.tres_usage_in_ave = e.tres_usage_in_ave();
    if (!e.tres_usage_in_max().empty()) s.tres_usage_in_max = e.tres_usage_in_max();
  }
  if (sink_) sink_->Post({s});
}

void AcctFeed::BatchUsage(int64_t job_id, acct::StepUsage usage) {
  batch_usage_[job_id] = std::move(usage);
}

void AcctFeed::AddLive(const JobInfo& job, AcctJobsReply* reply) const {
  *reply->add_jobs() = acct::ToProto(acct::JobRecordOf(job));
  if (auto batch = acct::BatchStepOf(job, UsageOf(job.job_id()))) {
    *reply->add_steps() = acct::ToProto(*batch);
  }
  auto open = open_steps_.find(job.job_id());
  if (open == open_steps_.end()) return;
  for (const auto& [sid, s] : open->second) {
    if (s.attempt == job.restarts()) *reply->add_steps() = acct::ToProto(s);
  }
}

void AcctFeed::PostNodeEvents(const NodeTable& nodes, const std::set<std::string>& maint,
                              bool resync) {
  int64_t now = Now();
  std::vector<acct::AcctOp> ops;
  for (const NodeRuntime& n : nodes.nodes()) {
    Wanted w = WantedOf(n, maint);
    if (!w.known) continue;
    std::string key = w.state + "\n" + w.reason;
    auto it = node_event_keys_.find(n.cfg.name);
    if (it != node_event_keys_.end() && it->second == key) continue;
    node_event_keys_[n.cfg.name] = key;
    int64_t at = now;
    // A restart re-opens a lost admin event from when the admin acted.
    bool admin = w.state == "DRAIN" || (w.state == "DOWN" && n.admin.down);
    if (resync && admin && n.admin.reason_time > 0 && n.admin.reason_time <= now) {
      at = n.admin.reason_time;
    }
    ops.push_back(acct::NodeEventSet{n.cfg.name, at, w.state, w.reason, n.cfg.cpus,
                                     static_cast<int64_t>(n.cfg.gpus.size())});
  }
  if (!ops.empty()) sink_->Post(std::move(ops));
}

void AcctFeed::NodesResync(const NodeTable& nodes, const std::set<std::string>& maint) {
  if (!sink_) return;
  node_event_keys_.clear();
  PostNodeEvents(nodes, maint, true);
  node_events_scanned_ = Now();
}

void AcctFeed::NodesCommitted(const NodeTable& nodes,
                              const std::function<std::set<std::string>()>& maint, bool changed) {
  if (!sink_ || (!changed && Now() == node_events_scanned_)) return;
  node_events_scanned_ = Now();
  PostNodeEvents(nodes, maint(), false);
}

}  // namespace sluice::ctld
