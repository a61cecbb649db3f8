// Accounting of the Controller: the feed (acct_feed.h) gets every committed job change,
// srun step and node availability change; AcctLive serves sacct's live part.
#include <algorithm>

#include "ctld/core/controller.h"

namespace sluice::ctld {

void Controller::AcctResync() {
  if (!acct_.enabled()) return;
  for (const auto& [id, job] : jobs_.jobs()) acct_.JobCommitted(job);
  acct_.NodesResync(nodes_, resvs_.NodesInMaint(Now()));
}

void Controller::AcctAfterCommit(const std::set<int64_t>& jobs, bool nodes_changed) {
  if (!acct_.enabled()) return;
  for (int64_t id : jobs) {
    if (const JobInfo* j = jobs_.Find(id)) acct_.JobCommitted(*j);
  }
  acct_.NodesCommitted(
      nodes_, [this] { return resvs_.NodesInMaint(Now()); }, nodes_changed);
}

AcctJobsReply Controller::AcctLive(const AcctJobsRequest& req) const {
  AcctJobsReply reply;
  // The uid filter only: accounts and states are chosen over all attempts of a job, which
  // the stored history has (the merge with it keeps every live record).
  auto add = [&](const JobInfo& job) {
    if (req.end() > 0 && job.submit_time() > req.end()) return;
    if (req.start() > 0 && job.end_time() > 0 && job.end_time() < req.start()) return;
    if (!req.uids().empty() &&
        std::find(req.uids().begin(), req.uids().end(), job.uid()) == req.uids().end()) {
      return;
    }
    acct_.AddLive(job, &reply);
  };
  if (req.job_ids_size() == 0 && req.uids().empty()) {
    for (const auto& [id, job] : jobs_.jobs()) add(job);
    return reply;
  }
  // The jobs named and the tasks of the arrays named, or the jobs of the uids named (from
  // the index of each uid's jobs), in id order, without walking the rest.
  std::vector<int64_t> ids;
  if (req.job_ids_size() > 0) {
    ids = ExpandJobIds({req.job_ids().begin(), req.job_ids().end()}, false);
  } else {
    for (uint32_t uid : req.uids()) {
      const std::set<int64_t>& of = jobs_.OfUid(uid);
      ids.insert(ids.end(), of.begin(), of.end());
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (int64_t id : ids) {
    if (const JobInfo* job = jobs_.Find(id)) add(*job);
  }
  return reply;
}

}  // namespace sluice::ctld
