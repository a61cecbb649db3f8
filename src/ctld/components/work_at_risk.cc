#include "ctld/components/work_at_risk.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace sluice::ctld {
namespace {

// "12,14,15" or "12,14,15,16,17 and 3 more".
std::string JobList(const std::vector<int64_t>& ids) {
  constexpr size_t kShown = 5;
  std::vector<int64_t> shown(ids.begin(), ids.begin() + std::min(ids.size(), kShown));
  std::string out = fmt::format("{}", fmt::join(shown, ","));
  if (ids.size() > kShown) out += fmt::format(" and {} more", ids.size() - kShown);
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void CheckNodes(const Config& next, const NodeTable& nodes,
                const std::map<std::string, ReservationInfo>& reservations,
                std::vector<std::string>* out) {
  for (const NodeRuntime& n : nodes.nodes()) {
    const std::string& name = n.cfg.name;
    const NodeConfig* after = next.FindNode(name);
    std::vector<int64_t> jobs(n.jobs.begin(), n.jobs.end());
    if (!after) {
      if (!jobs.empty()) {
        out->push_back(fmt::format(
            "node {} is removed but runs job(s) {}: drain it and let them end (or `sluice "
            "nodes requeue {}`) first",
            name, JobList(jobs), name));
      }
      for (const auto& [resv, r] : reservations) {
        if (Contains({r.nodes().begin(), r.nodes().end()}, name))
          out->push_back(fmt::format("node {} is removed but reservation {} holds it", name, resv));
      }
    } else if (!jobs.empty() && ResourcesChanged(n.cfg, *after)) {
      out->push_back(fmt::format(
          "node {} changes its CPUs, memory or GPUs while it runs job(s) {}: drain it and let "
          "them end first",
          name, JobList(jobs)));
    }
  }
}

void CheckPartitions(const Config& before, const Config& next, const JobTable& jobs,
                     const std::map<std::string, ReservationInfo>& reservations,
                     std::vector<std::string>* out) {
  std::map<std::string, std::vector<int64_t>> unfinished;  // removed partition -> its jobs
  for (const PartitionConfig& p : before.partitions)
    if (!next.FindPartition(p.name)) unfinished[p.name];
  if (!unfinished.empty()) {
    for (const auto& [id, job] : jobs.jobs()) {
      auto it = unfinished.find(job.spec().partition());
      if (it != unfinished.end() && !IsTerminal(job.state())) it->second.push_back(id);
    }
  }
  for (const auto& [part, ids] : unfinished) {
    if (!ids.empty()) {
      out->push_back(
          fmt::format("partition {} is removed but job(s) {} are pending or running in it", part,
                      JobList(ids)));
    }
  }
  for (const auto& [resv, r] : reservations) {
    if (r.partition().empty()) continue;
    const PartitionConfig* p = next.FindPartition(r.partition());
    if (!p) {
      out->push_back(
          fmt::format("partition {} is removed but reservation {} names it", r.partition(), resv));
      continue;
    }
    for (const std::string& node : r.nodes()) {
      if (!Contains(p->nodes, node) && next.FindNode(node)) {
        out->push_back(
            fmt::format("partition {} no longer has node {}, which reservation {} holds in it",
                        r.partition(), node, resv));
      }
    }
  }
}

}  // namespace

bool ResourcesChanged(const NodeConfig& before, const NodeConfig& after) {
  if (before.cpus != after.cpus || before.sockets != after.sockets ||
      before.cores_per_socket != after.cores_per_socket ||
      before.threads_per_core != after.threads_per_core ||
      before.real_memory_mb != after.real_memory_mb || before.gpus.size() != after.gpus.size()) {
    return true;
  }
  for (size_t i = 0; i < after.gpus.size(); ++i) {
    // A type the file leaves out may be one the agent found (AutoDetect): not a change.
    const GpuDef &b = before.gpus[i], &a = after.gpus[i];
    if (b.index != a.index || (!a.type.empty() && a.type != b.type)) return true;
  }
  return false;
}

std::vector<std::string> WorkAtRisk(const Config& before, const Config& next,
                                    const NodeTable& nodes, const JobTable& jobs,
                                    const std::map<std::string, ReservationInfo>& reservations) {
  std::vector<std::string> out;
  CheckNodes(next, nodes, reservations, &out);
  CheckPartitions(before, next, jobs, reservations, &out);
  return out;
}

}  // namespace sluice::ctld
