#include "ctld/components/step_layout.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "common/hostlist.h"

namespace sluice::ctld {
namespace {

// Allocation indices in hostlist order, restricted to `only` when not empty.
Expected<std::vector<int>> CandidateNodes(const JobInfo& job, const std::string& only,
                                          const std::set<std::string>& busy) {
  std::map<std::string, int> index;
  std::vector<std::string> names;
  for (int i = 0; i < job.alloc_size(); ++i) {
    index[job.alloc(i).node()] = i;
    names.push_back(job.alloc(i).node());
  }
  auto sorted = ExpandHostlist(CompressHostlistSorted(names));
  std::vector<std::string> order = sorted.ok() ? *sorted : names;
  if (!only.empty()) {
    // No more names than the allocation has nodes: counted before it is expanded.
    auto count = CountHostlist(only);
    if (!count.ok()) return InvalidArgument("Invalid node name specified");
    if (*count > index.size()) return InvalidArgument(kMsgStepNodeConfig);
    auto want = ExpandHostlist(only);
    if (!want.ok()) return InvalidArgument("Invalid node name specified");
    for (const std::string& n : *want) {
      if (!index.count(n)) return InvalidArgument(kMsgStepNodeConfig);
    }
    const std::set<std::string> wanted(want->begin(), want->end());
    std::vector<std::string> kept;
    for (const std::string& n : order) {
      if (wanted.count(n)) kept.push_back(n);
    }
    order = kept;
  } else {
    std::stable_partition(order.begin(), order.end(),
                          [&](const std::string& n) { return !busy.count(n); });
  }
  std::vector<int> out;
  for (const std::string& n : order) out.push_back(index[n]);
  return out;
}

// Per-node task counts for `ntasks` tasks on `nnodes` nodes.
std::vector<int> SpreadTasks(int ntasks, int nnodes, int per_node_cap) {
  std::vector<int> counts(nnodes, 0);
  if (per_node_cap > 0) {
    int left = ntasks;
    for (int i = 0; i < nnodes; ++i) {
      counts[i] = std::min(per_node_cap, left - (nnodes - i - 1));  // keep >= 1 for the rest
      counts[i] = std::max(1, counts[i]);
      left -= counts[i];
    }
    return counts;
  }
  for (int i = 0; i < nnodes; ++i) counts[i] = ntasks / nnodes + (i < ntasks % nnodes ? 1 : 0);
  return counts;
}

void AssignRanks(StepLayout* l) {
  size_t n = l->tasks_per_node.size();
  l->task_ids.assign(n, {});
  l->task_node.assign(l->ntasks, 0);
  if (!l->cyclic) {
    int rank = 0;
    for (size_t i = 0; i < n; ++i) {
      for (int k = 0; k < l->tasks_per_node[i]; ++k, ++rank) {
        l->task_ids[i].push_back(rank);
        l->task_node[rank] = static_cast<int>(i);
      }
    }
    return;
  }
  int rank = 0;
  while (rank < l->ntasks) {
    for (size_t i = 0; i < n && rank < l->ntasks; ++i) {
      if (static_cast<int>(l->task_ids[i].size()) >= l->tasks_per_node[i]) continue;
      l->task_ids[i].push_back(rank);
      l->task_node[rank++] = static_cast<int>(i);
    }
  }
}

Status CheckGpus(const JobInfo& job, const StepLayout& l, int gpus_per_task) {
  if (gpus_per_task <= 0) return Status::Ok();
  for (size_t i = 0; i < l.alloc_index.size(); ++i) {
    if (int64_t{l.tasks_per_node[i]} * gpus_per_task > job.alloc(l.alloc_index[i]).gpu_ids_size()) {
      return InvalidArgument(kMsgStepNodeConfig);
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<StepLayout> PlanStepLayout(const JobInfo& job, const StepRequest& req,
                                    const std::set<std::string>& busy) {
  if (req.nodes() < 0 || req.ntasks() < 0 || req.ntasks_per_node() < 0) {
    return InvalidArgument("Invalid task or node count");
  }
  ASSIGN_OR_RETURN(std::vector<int> cand, CandidateNodes(job, req.nodelist(), busy));
  int avail = static_cast<int>(cand.size());
  if (avail == 0 || req.nodes() > avail) return InvalidArgument(kMsgStepNodeConfig);
  // Bounded before the per-rank tables below are sized (and before any product).
  if (req.ntasks_per_node() > kMaxStepTasksPerNode ||
      int64_t{req.ntasks()} > int64_t{avail} * kMaxStepTasksPerNode) {
    return InvalidArgument(kMsgBadTaskCount);
  }
  StepLayout l;
  l.cyclic = req.distribution() == "cyclic";
  l.ntasks_per_node = req.ntasks_per_node();
  std::vector<int> counts;
  if (req.nodes() == 0 && req.ntasks() == 0 && req.ntasks_per_node() == 0) {
    for (int idx : cand) counts.push_back(std::max(1, job.alloc(idx).ntasks()));
    l.ntasks_per_node = job.spec().ntasks_per_node();
  } else {
    int nnodes = req.nodes() > 0 ? req.nodes() : avail;
    int ntasks = req.ntasks();
    if (ntasks == 0) ntasks = nnodes * std::max(1, req.ntasks_per_node());
    if (req.nodes() == 0) nnodes = std::min(nnodes, ntasks);
    nnodes = std::min(nnodes, ntasks);
    if (req.ntasks_per_node() > 0 && ntasks > nnodes * req.ntasks_per_node()) {
      return InvalidArgument(kMsgStepNodeConfig);
    }
    counts = SpreadTasks(ntasks, nnodes, req.ntasks_per_node());
    cand.resize(nnodes);
  }
  l.alloc_index = cand;
  l.tasks_per_node = counts;
  for (int idx : cand) l.nodes.push_back(job.alloc(idx).node());
  for (int c : counts) l.ntasks += c;
  AssignRanks(&l);
  RETURN_IF_ERROR(CheckGpus(job, l, req.gpus_per_task()));
  return l;
}

}  // namespace sluice::ctld
