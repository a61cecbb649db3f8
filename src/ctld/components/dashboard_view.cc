#include "ctld/components/dashboard_view.h"

#include <algorithm>

#include "ctld/components/cluster_metrics.h"

namespace sluice::ctld {
namespace {

using nlohmann::json;

constexpr size_t kMaxEvents = 50;

int64_t GpusOf(const JobInfo& j) {
  int64_t n = 0;
  for (const NodeAlloc& a : j.alloc()) n += a.gpu_ids_size();
  return n > 0 ? n : static_cast<int64_t>(j.gpus_per_node()) * j.num_nodes();
}

json JobCommon(const JobInfo& j) {
  return {{"id", j.job_id()},
          {"user", j.user()},
          {"account", j.spec().account()},
          {"name", j.spec().name()},
          {"partition", j.spec().partition()},
          {"gpus", GpusOf(j)},
          {"nodes", j.num_nodes()}};
}

// Whether the viewer may see the jobs of `uid`.
bool Sees(const DashboardInputs& in, uint32_t uid) { return !in.own_jobs_only || uid == in.uid; }

json Node(const NodeRuntime& n, const DashboardInputs& in) {
  const NodeInfo info = in.nodes->ToInfo(n, in.now);
  std::map<int, int64_t> holder;  // GPU index -> job id (-1: hidden)
  for (int64_t id : n.jobs) {
    const JobInfo* j = in.jobs->Find(id);
    if (!j) continue;
    for (const NodeAlloc& a : j->alloc()) {
      if (a.node() != n.cfg.name) continue;
      for (int g : a.gpu_ids()) holder[g] = Sees(in, j->uid()) ? id : -1;
    }
  }
  json gpus = json::array();
  std::string gpu_type;
  for (const auto& g : n.cfg.gpus) {
    auto it = holder.find(g.index);
    const int64_t job = it == holder.end() ? 0 : it->second;
    gpus.push_back({{"index", g.index}, {"job", job}});
    if (gpu_type.empty()) gpu_type = g.type;
  }
  return {
      {"name", n.cfg.name},     {"state", NodeStateName(info)},        {"reason", info.reason()},
      {"cpus", info.cpus()},    {"cpus_allocated", info.alloc_cpus()}, {"gpu_type", gpu_type},
      {"gpus", std::move(gpus)}};
}

json RunningJobs(const DashboardInputs& in, int64_t* running) {
  json out = json::array();
  for (int64_t id : in.jobs->NotPending()) {
    const JobInfo& j = *in.jobs->Find(id);
    if (!HoldsResources(j)) continue;
    ++*running;
    if (!Sees(in, j.uid())) continue;
    json o = JobCommon(j);
    o["start"] = j.start_time();
    o["time_limit"] = j.time_limit_min();
    out.push_back(std::move(o));
  }
  return out;
}

json Queue(const DashboardInputs& in) {
  json out = json::array();
  for (const JobInfo& j : in.queue) {
    json o = JobCommon(j);
    o["priority"] = j.priority();
    o["reason"] = PendingReason(j);
    o["planned_start"] = j.planned_start();
    o["explanation"] = j.explanation();
    out.push_back(std::move(o));
  }
  return out;
}

json GpuHours(const DashboardInputs& in) {
  std::vector<std::pair<std::string, double>> rows(in.gpu_hours.begin(), in.gpu_hours.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  json out = json::array();
  for (const auto& [account, hours] : rows) out.push_back({{"account", account}, {"hours", hours}});
  return out;
}

json Events(const DashboardInputs& in) {
  json out = json::array();
  if (!in.events) return out;
  const auto& all = in.events->events();
  for (auto it = all.rbegin(); it != all.rend() && out.size() < kMaxEvents; ++it) {
    if (it->job_id != 0 && !Sees(in, it->uid)) continue;
    out.push_back({{"time", it->time},
                   {"kind", EventKindName(it->kind)},
                   {"job_id", it->job_id},
                   {"node", it->node},
                   {"text", it->text}});
  }
  return out;
}

}  // namespace

json DashboardView(const DashboardInputs& in) {
  json nodes = json::array();
  int64_t gpus = 0, gpus_allocated = 0, running = 0;
  for (const NodeRuntime& n : in.nodes->nodes()) {
    gpus += static_cast<int64_t>(n.cfg.gpus.size());
    gpus_allocated += n.AllocatedGpus();
    nodes.push_back(Node(n, in));
  }
  json jobs = RunningJobs(in, &running);
  return {{"cluster", in.cluster},
          {"now", in.now},
          {"user", in.user},
          {"admin", in.admin},
          {"totals",
           {{"nodes", nodes.size()},
            {"gpus", gpus},
            {"gpus_allocated", gpus_allocated},
            {"running", running},
            {"pending", in.pending}}},
          {"nodes", std::move(nodes)},
          {"jobs", std::move(jobs)},
          {"queue", Queue(in)},
          {"gpu_hours_24h", GpuHours(in)},
          {"events", Events(in)}};
}

}  // namespace sluice::ctld
