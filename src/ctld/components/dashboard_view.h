// DashboardView: what the web dashboard shows (GET /dashboard/state), as one JSON
// document, from the controller's tables at one moment:
//   cluster, now, user, admin   who is looking, when (unix seconds)
//   totals        nodes, gpus, gpus_allocated, running, pending
//   nodes         [{name, state, reason, cpus, cpus_allocated, gpu_type,
//                   gpus: [{index, job}]}]   job: the id holding that GPU, 0 when free,
//                   -1 when it is another user's job that PrivateData hides
//   jobs          the running jobs the viewer may see: [{id, user, account, name,
//                   partition, gpus, nodes, start, time_limit}]
//   queue         the first pending jobs in scheduling order (the last pass's, then the
//                   jobs it did not consider, oldest first), with the scheduler's
//                   reason in words: [{id, user, account, name, partition, gpus, nodes,
//                   priority, reason, planned_start, explanation}]; pending counts all
//   gpu_hours_24h [{account, hours}], most first
//   events        recent node failures, requeues and preemptions, newest first:
//                   [{time, kind, job_id, node, text}]
// With PrivateData=jobs a non-admin sees only their own jobs, in every part.
// Pure: no I/O; the caller passes the already explained queue (explain_ops.cc).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctld/components/job_table.h"
#include "ctld/components/node_table.h"
#include "ctld/components/recent_events.h"

namespace sluice::ctld {

struct DashboardInputs {
  std::string cluster;
  int64_t now = 0;
  std::string user;
  uint32_t uid = 0;
  bool admin = false;
  bool own_jobs_only = false;  // PrivateData=jobs and not an admin
  const NodeTable* nodes = nullptr;
  const JobTable* jobs = nullptr;
  std::vector<JobInfo> queue;  // pending, in scheduling order, explained
  int64_t pending = 0;         // every pending job (the viewer's, when own_jobs_only)
  const RecentEvents* events = nullptr;
  std::map<std::string, double> gpu_hours;  // by account, last 24 h
};

nlohmann::json DashboardView(const DashboardInputs& in);

}  // namespace sluice::ctld
