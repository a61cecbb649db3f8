#include "ctld/components/node_table.h"

#include <algorithm>
#include <charconv>

#include "common/text_util.h"
#include "ctld/components/work_at_risk.h"

namespace sluice::ctld {
namespace {

int GpuSlot(const NodeRuntime& n, int index) {
  for (size_t i = 0; i < n.cfg.gpus.size(); ++i) {
    if (n.cfg.gpus[i].index == index) return static_cast<int>(i);
  }
  return -1;
}

void Mark(NodeRuntime* n, const NodeAlloc& a, bool used, bool exclusive, int64_t job_id) {
  for (int c : a.cpu_ids()) {
    if (c >= 0 && c < static_cast<int>(n->cpu_used.size())) n->cpu_used[c] = used;
  }
  for (int g : a.gpu_ids()) {
    int slot = GpuSlot(*n, g);
    if (slot >= 0) n->gpu_used[slot] = used;
  }
  n->mem_used_mb = std::max<int64_t>(0, n->mem_used_mb + (used ? a.mem_mb() : -a.mem_mb()));
  if (exclusive) n->exclusive_jobs = std::max(0, n->exclusive_jobs + (used ? 1 : -1));
  if (used) {
    n->jobs.insert(job_id);
  } else {
    n->jobs.erase(job_id);
  }
}

// GPU affinity from gres.conf: Links= (link counts to each GPU by index; -1 = itself),
// else GPUs that share a Cores= set are related with weight 1.
std::vector<std::vector<int>> GpuLinks(const NodeConfig& nc) {
  std::vector<std::vector<int>> out(nc.gpus.size());
  for (size_t i = 0; i < nc.gpus.size(); ++i) {
    const GpuDef& g = nc.gpus[i];
    if (!g.links.empty()) {
      for (std::string_view item : Split(g.links, ',')) {
        int v = 0;
        std::from_chars(item.data(), item.data() + item.size(), v);
        out[i].push_back(std::max(0, v));
      }
    } else if (!g.cores.empty()) {
      out[i].assign(nc.gpus.size(), 0);
      for (size_t j = 0; j < nc.gpus.size(); ++j)
        if (j != i && nc.gpus[j].cores == g.cores) out[i][nc.gpus[j].index] = 1;
    }
  }
  return out;
}

// The topology's switches as the scheduler sees them; sets each node's leaf switch.
std::vector<sched::Switch> BuildSwitches(const Config& config, std::vector<NodeRuntime>* nodes,
                                         const std::map<std::string, size_t>& index) {
  std::vector<sched::Switch> out;
  std::map<std::string, int> by_name;
  for (const SwitchConfig& sw : config.switches) {
    by_name[sw.name] = static_cast<int>(out.size());
    out.push_back({sw.name, -1});
  }
  for (const SwitchConfig& sw : config.switches) {
    for (const std::string& child : sw.switches) out[by_name[child]].parent = by_name[sw.name];
    for (const std::string& node : sw.nodes) {
      auto it = index.find(node);
      if (it != index.end()) (*nodes)[it->second].leaf_switch = by_name[sw.name];
    }
  }
  return out;
}

}  // namespace

NodeTable::NodeTable(const Config& config) {
  for (const auto& nc : config.nodes) {
    NodeRuntime n;
    n.cfg = nc;
    n.admin.name = nc.name;
    n.addr = nc.addr;
    n.port = nc.port ? nc.port : config.slurmd_port;
    n.cpu_used.assign(nc.cpus, false);
    n.gpu_used.assign(nc.gpus.size(), false);
    n.gpu_links = GpuLinks(nc);
    n.gpu_faults.assign(nc.gpus.size(), "");
    for (const auto& p : config.partitions) {
      if (std::find(p.nodes.begin(), p.nodes.end(), nc.name) != p.nodes.end()) {
        n.partitions.push_back(p.name);
      }
    }
    index_[nc.name] = nodes_.size();
    nodes_.push_back(std::move(n));
  }
  switches_ = BuildSwitches(config, &nodes_, index_);
}

std::vector<std::string> NodeTable::Reconfigure(const Config& next) {
  NodeTable fresh(next);
  std::vector<std::string> changed;
  for (NodeRuntime& n : fresh.nodes_) {
    const NodeRuntime* old = Find(n.cfg.name);
    if (!old) continue;
    const bool same = !ResourcesChanged(old->cfg, n.cfg);
    if (!same) changed.push_back(n.cfg.name);
    n.admin = old->admin;
    n.registered = old->registered && same;
    n.responding = old->responding;
    n.last_heartbeat_ms = old->last_heartbeat_ms;
    n.clock_skew_ms = old->clock_skew_ms;
    n.boot_time = old->boot_time;
    n.version = old->version;
    n.protocol = old->protocol;
    n.health_seq = old->health_seq;
    n.session = old->session;
    n.unsent = old->unsent;
    if (old->registered) {  // where its agent said it listens
      n.addr = old->addr;
      n.port = old->port;
    }
    if (same) {
      n.gpu_faults = old->gpu_faults;
      fresh.AdoptFoundGpus(&n, old->found_gpus);
    }
  }
  *this = std::move(fresh);
  return changed;
}

NodeRuntime* NodeTable::Find(const std::string& name) {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

const NodeRuntime* NodeTable::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

void NodeTable::Allocate(const JobInfo& job, bool exclusive) {
  for (const auto& a : job.alloc()) {
    if (NodeRuntime* n = Find(a.node())) Mark(n, a, true, exclusive, job.job_id());
  }
}

void NodeTable::Release(const JobInfo& job, bool exclusive) {
  for (const auto& a : job.alloc()) {
    NodeRuntime* n = Find(a.node());
    if (n && n->jobs.count(job.job_id())) Mark(n, a, false, exclusive, job.job_id());
  }
}

bool NodeTable::AdoptFoundGpus(NodeRuntime* n, const std::vector<GpuInfo>& reported) {
  if (reported.size() != n->cfg.gpus.size()) return false;
  bool found = std::any_of(reported.begin(), reported.end(),
                           [](const GpuInfo& g) { return !g.uuid().empty(); });
  if (!found) return false;  // configured GPUs echoed back: nothing new
  for (size_t i = 0; i < reported.size(); ++i) {
    GpuDef& d = n->cfg.gpus[i];
    const GpuInfo& g = reported[i];
    if (d.type.empty()) d.type = g.type();
    if (!g.file().empty()) d.file = g.file();
    if (!g.links().empty()) d.links = g.links();
    if (!g.cores().empty()) d.cores = g.cores();
  }
  n->found_gpus = reported;
  n->gpu_links = GpuLinks(n->cfg);
  return true;
}

sched::ClusterSnapshot NodeTable::Snapshot(bool all_empty) const {
  sched::ClusterSnapshot snap;
  snap.switches = switches_;
  snap.nodes.reserve(nodes_.size());
  for (const auto& n : nodes_) {
    sched::Node s;
    s.name = n.cfg.name;
    s.cpus = n.cfg.cpus;
    s.mem_mb = n.cfg.real_memory_mb;
    s.features = n.cfg.features;
    for (size_t i = 0; i < n.cfg.gpus.size(); ++i) {
      bool busy = n.gpu_used[i] || !n.gpu_faults[i].empty();  // a failed GPU takes no job
      s.gpus.push_back(
          {n.cfg.gpus[i].index, n.cfg.gpus[i].type, !all_empty && busy, n.gpu_links[i]});
    }
    s.leaf_switch = n.leaf_switch;
    if (!all_empty) {
      s.available = n.Available();
      s.cpu_used = n.cpu_used;
      s.mem_used_mb = n.mem_used_mb;
      s.exclusive_held = n.exclusive_jobs > 0;
      s.running_jobs = static_cast<int>(n.jobs.size());
    }
    snap.nodes.push_back(std::move(s));
  }
  return snap;
}

NodeInfo NodeTable::ToInfo(const NodeRuntime& n, int64_t now) const {
  NodeInfo info;
  info.set_name(n.cfg.name);
  const int used_cpus = n.AllocatedCpus();
  NodeState st = NODE_IDLE;
  if (n.Down()) {
    st = NODE_DOWN;
  } else if (!n.registered) {
    st = NODE_UNKNOWN;
  } else if (n.exclusive_jobs > 0 || (n.cfg.cpus > 0 && used_cpus >= n.cfg.cpus)) {
    st = NODE_ALLOCATED;
  } else if (!n.jobs.empty()) {
    st = NODE_MIXED;
  }
  info.set_state(st);
  info.set_drain(n.admin.drain);
  bool not_responding = !n.responding && !n.admin.down && !n.admin.drain;
  info.set_reason(not_responding ? "Not responding" : n.admin.reason);
  info.set_reason_time(n.admin.reason_time);
  info.set_reason_uid(n.admin.reason_uid);
  info.set_addr(n.addr);
  info.set_port(n.port);
  info.set_cpus(n.cfg.cpus);
  info.set_sockets(n.cfg.sockets);
  info.set_cores_per_socket(n.cfg.cores_per_socket);
  info.set_threads_per_core(n.cfg.threads_per_core);
  info.set_real_memory_mb(n.cfg.real_memory_mb);
  for (size_t i = 0; i < n.cfg.gpus.size(); ++i) {
    const GpuDef& g = n.cfg.gpus[i];
    GpuInfo* gi = info.add_gpus();
    if (i < n.found_gpus.size()) *gi = n.found_gpus[i];
    gi->set_index(g.index);
    gi->set_type(g.type);
    gi->set_file(g.file);
    gi->set_links(g.links);
    gi->set_cores(g.cores);
  }
  for (const auto& f : n.cfg.features) info.add_features(f);
  for (const auto& p : n.partitions) info.add_partitions(p);
  info.set_alloc_cpus(used_cpus);
  info.set_alloc_mem_mb(n.mem_used_mb);
  info.set_alloc_gpus(n.AllocatedGpus());
  info.set_boot_time(n.boot_time);
  info.set_last_heartbeat(n.last_heartbeat_ms / 1000);
  if (n.clock_skew_ms) info.set_clock_skew_ms(*n.clock_skew_ms);
  if (!n.version.empty()) info.set_version(n.version);
  info.set_protocol(n.protocol);
  info.set_responding(n.registered && n.responding);
  (void)now;
  return info;
}

}  // namespace sluice::ctld
