// First-fit placement of one job on a snapshot, and bookkeeping of allocations.
#include "sched/placement.h"

#include <algorithm>
#include <unordered_set>

#include "sched/constraint.h"
#include "sched/scheduler.h"

namespace sluice::sched {

namespace {

// The request's static node filters: partition, --exclude and --constraint.
struct NodeFilter {
  std::unordered_set<std::string> allowed;  // empty = all
  std::unordered_set<std::string> excluded;
  FeatureExpr features;

  bool Admits(const Node& node) const {
    if (!allowed.empty() && !allowed.count(node.name)) return false;
    if (excluded.count(node.name)) return false;
    return features.Matches(node.features);
  }
};

bool CpuUsed(const Node& node, int id) {
  return id < static_cast<int>(node.cpu_used.size()) && node.cpu_used[id];
}

int FreeCpus(const Node& node) {
  int free = 0;
  for (int id = 0; id < node.cpus; ++id) free += CpuUsed(node, id) ? 0 : 1;
  return free;
}

bool GpuMatches(const Gpu& gpu, const std::string& type) {
  return type.empty() || gpu.type == type;
}

// Indices of the node's free GPUs of `type` (any type when empty), ascending.
std::vector<int> FreeGpuIndices(const Node& node, const std::string& type) {
  std::vector<int> ids;
  for (const Gpu& gpu : node.gpus) {
    if (!gpu.used && GpuMatches(gpu, type)) ids.push_back(gpu.index);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool NodeIdle(const Node& node) {
  if (node.running_jobs != 0 || node.exclusive_held || node.mem_used_mb != 0) return false;
  if (FreeCpus(node) != node.cpus) return false;
  return std::none_of(node.gpus.begin(), node.gpus.end(), [](const Gpu& g) { return g.used; });
}

// Whether the node, as it is now, has room for one node's share of `job`.
bool HasRoom(const Node& node, const JobRequest& job) {
  if (!node.available || node.exclusive_held) return false;
  if (job.exclusive && !NodeIdle(node)) return false;
  if (FreeCpus(node) < job.cpus_per_node) return false;
  if (node.mem_mb - node.mem_used_mb < job.mem_per_node_mb) return false;
  if (job.gpus_per_node == 0) return true;
  return static_cast<int>(FreeGpuIndices(node, job.gpu_type).size()) >= job.gpus_per_node;
}

NodeShare MakeShare(const Node& node, const JobRequest& job) {
  NodeShare share;
  share.node = node.name;
  share.ntasks = job.tasks_per_node;
  if (job.exclusive) {
    for (int id = 0; id < node.cpus; ++id) share.cpu_ids.push_back(id);
    share.mem_mb = node.mem_mb;
    share.gpu_ids = FreeGpuIndices(node, "");
    return share;
  }
  for (int id = 0; id < node.cpus && static_cast<int>(share.cpu_ids.size()) < job.cpus_per_node;
       ++id) {
    if (!CpuUsed(node, id)) share.cpu_ids.push_back(id);
  }
  share.mem_mb = job.mem_per_node_mb;
  share.gpu_ids = FreeGpuIndices(node, job.gpu_type);
  share.gpu_ids.resize(job.gpus_per_node);
  return share;
}

int FindNode(const ClusterSnapshot& snapshot, const std::string& name) {
  for (size_t i = 0; i < snapshot.nodes.size(); ++i) {
    if (snapshot.nodes[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// Adds the indices of --nodelist nodes to `chosen`; false if any is unknown or unusable.
bool ChooseRequired(const ClusterSnapshot& snapshot, const JobRequest& job,
                    const NodeFilter& filter, std::vector<int>* chosen) {
  for (const std::string& name : job.required_nodes) {
    int index = FindNode(snapshot, name);
    if (index < 0) return false;
    if (std::find(chosen->begin(), chosen->end(), index) != chosen->end()) continue;
    const Node& node = snapshot.nodes[index];
    if (!filter.Admits(node) || !HasRoom(node, job)) return false;
    chosen->push_back(index);
  }
  return true;
}

}  // namespace

bool ValidRequest(const JobRequest& job) {
  return job.num_nodes >= 1 && job.cpus_per_node >= 1 && job.tasks_per_node >= 0 &&
         job.mem_per_node_mb >= 0 && job.gpus_per_node >= 0;
}

bool PlaceJob(const ClusterSnapshot& snapshot, const JobRequest& job,
              std::vector<NodeShare>* alloc) {
  alloc->clear();
  if (!ValidRequest(job)) return false;
  auto features = FeatureExpr::Parse(job.constraint);
  if (!features.ok()) return false;
  NodeFilter filter{{job.allowed_nodes.begin(), job.allowed_nodes.end()},
                    {job.excluded_nodes.begin(), job.excluded_nodes.end()},
                    std::move(features).value()};
  std::vector<int> chosen;
  if (!ChooseRequired(snapshot, job, filter, &chosen)) return false;
  const size_t want = std::max<size_t>(job.num_nodes, chosen.size());
  for (size_t i = 0; i < snapshot.nodes.size() && chosen.size() < want; ++i) {
    const Node& node = snapshot.nodes[i];
    if (std::find(chosen.begin(), chosen.end(), static_cast<int>(i)) != chosen.end()) continue;
    if (filter.Admits(node) && HasRoom(node, job)) chosen.push_back(static_cast<int>(i));
  }
  if (chosen.size() < want) return false;
  std::sort(chosen.begin(), chosen.end());
  for (int index : chosen) alloc->push_back(MakeShare(snapshot.nodes[index], job));
  return true;
}

void ApplyAllocation(ClusterSnapshot* snapshot, const std::vector<NodeShare>& alloc,
                     bool exclusive) {
  for (const NodeShare& share : alloc) {
    int index = FindNode(*snapshot, share.node);
    if (index < 0) continue;
    Node& node = snapshot->nodes[index];
    if (static_cast<int>(node.cpu_used.size()) < node.cpus) node.cpu_used.resize(node.cpus);
    for (int id : share.cpu_ids) {
      if (id >= 0 && id < node.cpus) node.cpu_used[id] = true;
    }
    node.mem_used_mb += share.mem_mb;
    for (Gpu& gpu : node.gpus) {
      if (std::count(share.gpu_ids.begin(), share.gpu_ids.end(), gpu.index)) gpu.used = true;
    }
    node.running_jobs += 1;
    if (exclusive) node.exclusive_held = true;
  }
}

ClusterSnapshot EmptyCluster(const ClusterSnapshot& snapshot) {
  ClusterSnapshot empty = snapshot;
  for (Node& node : empty.nodes) {
    node.available = true;
    node.cpu_used.clear();
    node.mem_used_mb = 0;
    for (Gpu& gpu : node.gpus) gpu.used = false;
    node.exclusive_held = false;
    node.running_jobs = 0;
  }
  return empty;
}

Decision CheckFeasibleOnEmpty(const ClusterSnapshot& empty, const JobRequest& job) {
  Decision decision;
  decision.job_id = job.job_id;
  if (!FeatureExpr::Parse(job.constraint).ok()) {
    decision.outcome = Outcome::kNever;
    decision.reason = kReasonBadConstraints;
    return decision;
  }
  if (PlaceJob(empty, job, &decision.alloc)) {
    decision.outcome = Outcome::kStartNow;
    return decision;
  }
  decision.outcome = Outcome::kNever;
  decision.reason = kReasonNodeConfig;
  return decision;
}

Decision CheckFeasible(const ClusterSnapshot& snapshot, const JobRequest& job) {
  return CheckFeasibleOnEmpty(EmptyCluster(snapshot), job);
}

}  // namespace sluice::sched
