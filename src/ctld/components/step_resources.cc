#include "ctld/components/step_resources.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace sluice::ctld {
namespace {

// Products of request counts, capped (they are compared with what a node has).
int ClampInt(int64_t v) { return static_cast<int>(std::min<int64_t>(v, INT32_MAX)); }

struct Held {
  std::set<int> cpus;
  std::set<int> gpus;
  int64_t mem_mb = 0;
};

Held HeldOn(const std::string& node, const std::vector<ActiveStep>& running) {
  Held h;
  for (const ActiveStep& s : running) {
    if (s.overlap) continue;
    for (const StepNodeUse& u : s.use) {
      if (u.node != node) continue;
      h.cpus.insert(u.cpu_ids.begin(), u.cpu_ids.end());
      h.gpus.insert(u.gpu_ids.begin(), u.gpu_ids.end());
      h.mem_mb += u.mem_mb;
    }
  }
  return h;
}

// The first `want` of `ids` not in `held`; -1 = all of them that are free.
std::vector<int> Take(const google::protobuf::RepeatedField<int32_t>& ids,
                      const std::set<int>& held, int want) {
  std::vector<int> out;
  for (int id : ids) {
    if (want >= 0 && static_cast<int>(out.size()) >= want) break;
    if (!held.count(id)) out.push_back(id);
  }
  return out;
}

// Memory the step takes on a node given the CPUs it got; -1 = all that is free.
int64_t WantMem(const StepRequest& req, size_t cpus) {
  if (!req.mem_set()) return 0;
  if (req.mem_per_cpu_mb() > 0) return req.mem_per_cpu_mb() * static_cast<int64_t>(cpus);
  if (req.mem_per_node_mb() > 0) return req.mem_per_node_mb();
  return -1;
}

}  // namespace

std::set<std::string> FullyHeldNodes(const JobInfo& job, const std::vector<ActiveStep>& running) {
  std::set<std::string> out;
  for (const NodeAlloc& a : job.alloc()) {
    if (a.cpu_ids_size() > 0 &&
        HeldOn(a.node(), running).cpus.size() >= static_cast<size_t>(a.cpu_ids_size())) {
      out.insert(a.node());
    }
  }
  return out;
}

Expected<std::vector<StepNodeUse>> PickStepResources(const JobInfo& job, const StepLayout& layout,
                                                     const StepRequest& req,
                                                     const std::vector<ActiveStep>& running) {
  if (req.cpus_per_gpu() > 0 && req.cpus_per_task() > 0) return InvalidArgument(kMsgStepCpusPerGpu);
  bool exact = req.exact() || req.cpus_per_task() > 0 || req.cpus_per_gpu() > 0;
  int cpt = std::max(1, req.cpus_per_task());
  std::vector<StepNodeUse> out;
  bool busy = false;
  for (size_t i = 0; i < layout.alloc_index.size(); ++i) {
    const NodeAlloc& a = job.alloc(layout.alloc_index[i]);
    int tasks = layout.tasks_per_node[i];
    int ncpu = a.cpu_ids_size();
    int want_gpus = -1;  // implicit: whatever is free
    if (req.gpus_per_task() > 0)
      want_gpus = ClampInt(int64_t{tasks} * req.gpus_per_task());
    else if (req.gpus_per_node() > 0)
      want_gpus = req.gpus_per_node();
    if (want_gpus > a.gpu_ids_size()) return InvalidArgument(kMsgStepNodeConfig);
    int want_cpus = exact ? ClampInt(int64_t{tasks} * cpt) : ncpu;
    if (req.cpus_per_gpu() > 0) {  // CPUs follow the GPUs the step asks for (or the node's)
      want_cpus =
          ClampInt(int64_t{want_gpus >= 0 ? want_gpus : a.gpu_ids_size()} * req.cpus_per_gpu());
      if (want_cpus == 0) return InvalidArgument(kMsgStepNodeConfig);
    }
    if (exact && ncpu > 0 && want_cpus > ncpu) return InvalidArgument(kMsgTooManyCpus);

    Held held = req.overlap() ? Held{} : HeldOn(a.node(), running);
    StepNodeUse use;
    use.node = a.node();
    use.cpu_ids = Take(a.cpu_ids(), held.cpus, std::min(want_cpus, ncpu));
    use.gpu_ids = Take(a.gpu_ids(), held.gpus, want_gpus);
    if (static_cast<int>(use.cpu_ids.size()) < std::min(want_cpus, ncpu)) busy = true;
    if (want_gpus >= 0 && static_cast<int>(use.gpu_ids.size()) < want_gpus) busy = true;
    if (a.mem_mb() > 0) {
      // --mem-per-cpu counts the CPUs the step asks for, even while they are held.
      int64_t want_mem = WantMem(req, static_cast<size_t>(std::min(want_cpus, ncpu)));
      int64_t free_mem = std::max<int64_t>(0, a.mem_mb() - held.mem_mb);
      if (want_mem > a.mem_mb()) return InvalidArgument(kMsgTaskMemory);
      use.mem_mb = want_mem < 0 ? free_mem : want_mem;
      if (want_mem < 0 ? free_mem == 0 : want_mem > free_mem) busy = true;
    }
    out.push_back(std::move(use));
  }
  if (busy) return Status(Code::kResourceExhausted, kMsgNodesBusy);
  return out;
}

}  // namespace sluice::ctld
