// NodeName= and PartitionName= lines of the config (see config.h).
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "common/config_internal.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

constexpr int kMaxCount = 1 << 20;  // CPUs, sockets, ...
constexpr int64_t kMaxGpusPerNode = 1024;

// A node line's values before its names are expanded.
struct NodeSpec {
  NodeConfig tmpl;
  bool cpus_set = false;
  bool sockets_set = false;
  std::string addr_expr;
  std::string hostname_expr;
  std::string port_expr;
};

bool IsIgnoredNodeKey(std::string_view key) {
  for (const char* k : {"Boards", "Weight", "CoreSpecCount", "CpuSpecList", "MemSpecLimit",
                        "Reason", "Arch", "OS"}) {
    if (EqualsIgnoreCase(key, k)) return true;
  }
  return false;
}

Status SetNodeGres(std::string_view v, NodeConfig* n) {
  n->gpus.clear();
  if (EqualsIgnoreCase(v, "(null)")) return Status::Ok();
  ASSIGN_OR_RETURN(auto specs, ParseGres(v));
  for (const GresSpec& g : specs) {
    if (g.name != "gpu") continue;
    if (static_cast<int64_t>(n->gpus.size()) + g.count > kMaxGpusPerNode) {
      return InvalidArgument(fmt::format("too many GPUs in Gres '{}'", v));
    }
    for (int64_t i = 0; i < g.count; ++i) {
      GpuDef d;
      d.index = static_cast<int>(n->gpus.size());
      d.type = g.type;
      n->gpus.push_back(std::move(d));
    }
  }
  return Status::Ok();
}

Status SetNodeState(std::string_view v, NodeConfig* n) {
  std::string up = ToUpper(v);
  for (const char* s : {"UNKNOWN", "IDLE", "DOWN", "DRAIN", "FAIL", "FUTURE", "CLOUD"}) {
    if (up == s) {
      n->state = up;
      return Status::Ok();
    }
  }
  return InvalidArgument(fmt::format("invalid node State '{}'", v));
}

Status ApplyTopologyKey(const ConfigPair& p, NodeSpec* s, bool* handled) {
  *handled = true;
  NodeConfig& n = s->tmpl;
  if (EqualsIgnoreCase(p.key, "CPUs") || EqualsIgnoreCase(p.key, "Procs")) {
    s->cpus_set = true;
    return ParseIntValue("CPUs", p.value, 1, kMaxCount, &n.cpus);
  }
  if (EqualsIgnoreCase(p.key, "Sockets")) {
    s->sockets_set = true;
    return ParseIntValue("Sockets", p.value, 1, kMaxCount, &n.sockets);
  }
  if (EqualsIgnoreCase(p.key, "CoresPerSocket")) {
    return ParseIntValue("CoresPerSocket", p.value, 1, kMaxCount, &n.cores_per_socket);
  }
  if (EqualsIgnoreCase(p.key, "ThreadsPerCore")) {
    return ParseIntValue("ThreadsPerCore", p.value, 1, kMaxCount, &n.threads_per_core);
  }
  if (EqualsIgnoreCase(p.key, "RealMemory"))
    return ParseSizeValue("RealMemory", p.value, 1, &n.real_memory_mb);
  if (EqualsIgnoreCase(p.key, "TmpDisk"))
    return ParseSizeValue("TmpDisk", p.value, 0, &n.tmp_disk_mb);
  *handled = false;
  return Status::Ok();
}

Status ApplyNodeKey(const ConfigPair& p, NodeSpec* s) {
  bool handled = false;
  RETURN_IF_ERROR(ApplyTopologyKey(p, s, &handled));
  if (handled) return Status::Ok();
  if (EqualsIgnoreCase(p.key, "Gres")) return SetNodeGres(p.value, &s->tmpl);
  if (EqualsIgnoreCase(p.key, "State")) return SetNodeState(p.value, &s->tmpl);
  if (EqualsIgnoreCase(p.key, "Feature") || EqualsIgnoreCase(p.key, "Features")) {
    s->tmpl.features = ParseList(p.value);
    return Status::Ok();
  }
  if (EqualsIgnoreCase(p.key, "NodeAddr")) return (s->addr_expr = p.value, Status::Ok());
  if (EqualsIgnoreCase(p.key, "NodeHostname")) return (s->hostname_expr = p.value, Status::Ok());
  if (EqualsIgnoreCase(p.key, "Port")) return (s->port_expr = p.value, Status::Ok());
  if (IsIgnoredNodeKey(p.key)) return Status::Ok();
  return InvalidArgument(fmt::format("unknown key '{}'", p.key));
}

// One value per node: a single value for all, or a hostlist with one per node.
Expected<std::vector<std::string>> PerNode(std::string_view key, const std::string& expr,
                                           size_t count) {
  ASSIGN_OR_RETURN(auto values, ExpandHostlist(expr));
  if (values.size() == 1) return std::vector<std::string>(count, values[0]);
  if (values.size() != count) {
    return InvalidArgument(
        fmt::format("{}={} gives {} values for {} nodes", key, expr, values.size(), count));
  }
  return values;
}

void FinishTopology(NodeSpec* s) {
  NodeConfig& n = s->tmpl;
  int per_socket = n.cores_per_socket * n.threads_per_core;
  if (!s->cpus_set) {
    n.cpus = n.sockets * per_socket;
  } else if (!s->sockets_set) {
    n.sockets = std::max(1, n.cpus / per_socket);
  }
}

Status AddNodes(const std::vector<std::string>& names, const NodeSpec& spec, int line_no,
                ParseContext* ctx) {
  std::string addr_expr = spec.addr_expr.empty() ? spec.hostname_expr : spec.addr_expr;
  std::vector<std::string> addrs = names, ports;
  if (!addr_expr.empty()) {
    auto a = PerNode("NodeAddr", addr_expr, names.size());
    RETURN_IF_ERROR(AtLine(a.status(), ctx->path, line_no));
    addrs = std::move(*a);
  }
  if (!spec.port_expr.empty()) {
    auto p = PerNode("Port", spec.port_expr, names.size());
    RETURN_IF_ERROR(AtLine(p.status(), ctx->path, line_no));
    ports = std::move(*p);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!ctx->node_names.insert(names[i]).second) {
      return ConfigError(ctx->path, line_no, fmt::format("duplicate node '{}'", names[i]));
    }
    NodeConfig n = spec.tmpl;
    n.name = names[i];
    n.addr = addrs[i];
    if (!ports.empty()) {
      RETURN_IF_ERROR(
          AtLine(ParseIntValue("Port", ports[i], 1, 65535, &n.port), ctx->path, line_no));
    }
    ctx->config->nodes.push_back(std::move(n));
  }
  return Status::Ok();
}

bool HasKey(const ConfigLine& line, std::string_view key) {
  return std::any_of(line.pairs.begin(), line.pairs.end(),
                     [&](const ConfigPair& p) { return EqualsIgnoreCase(p.key, key); });
}

// ---------------------------------------------------------------- partitions

bool IsIgnoredPartitionKey(std::string_view key) {
  for (const char* k : {"DenyQos",         "MinNodes",     "Hidden",
                        "ExclusiveUser",   "LLN",          "MaxCPUsPerNode",
                        "DefMemPerCPU",    "MaxMemPerCPU", "DefMemPerNode",
                        "MaxMemPerNode",   "QOS",          "TRESBillingWeights",
                        "DisableRootJobs", "RootOnly",     "ReqResv",
                        "OverTimeLimit",   "AllocNodes",   "Alternate",
                        "DefCpuPerGPU",    "DefMemPerGPU"}) {
    if (EqualsIgnoreCase(key, k)) return true;
  }
  return false;
}

// "a,b,c" -> {a, b, c}; "ALL" (any case) -> {} (no restriction).
Status SetAccessList(std::string_view v, std::vector<std::string>* out) {
  out->clear();
  if (EqualsIgnoreCase(v, "ALL")) return Status::Ok();
  size_t from = 0;
  while (from <= v.size()) {
    size_t comma = v.find(',', from);
    if (comma == std::string_view::npos) comma = v.size();
    if (comma > from) out->emplace_back(v.substr(from, comma - from));
    from = comma + 1;
  }
  return Status::Ok();
}

Status SetPartitionState(std::string_view v, PartitionConfig* p) {
  if (EqualsIgnoreCase(v, "UP")) return (p->up = true, Status::Ok());
  for (const char* s : {"DOWN", "DRAIN", "INACTIVE"}) {
    if (EqualsIgnoreCase(v, s)) return (p->up = false, Status::Ok());
  }
  return InvalidArgument(fmt::format("invalid partition State '{}'", v));
}

Status SetTime(std::string_view key, std::string_view v, int64_t* out) {
  auto t = ParseTimeLimitMinutes(v);
  if (!t.ok()) return InvalidArgument(fmt::format("invalid value '{}' for {}", v, key));
  *out = *t;
  return Status::Ok();
}

Status ApplyPartitionKey(const ConfigPair& kv, PartitionConfig* p) {
  const std::string& k = kv.key;
  const std::string& v = kv.value;
  if (EqualsIgnoreCase(k, "Nodes")) return (p->nodes_expr = v, Status::Ok());
  if (EqualsIgnoreCase(k, "Default")) return ParseBoolValue("Default", v, &p->is_default);
  if (EqualsIgnoreCase(k, "MaxTime")) return SetTime("MaxTime", v, &p->max_time_min);
  if (EqualsIgnoreCase(k, "DefaultTime")) {
    if (EqualsIgnoreCase(v, "NONE")) return (p->default_time_min = 0, Status::Ok());
    return SetTime("DefaultTime", v, &p->default_time_min);
  }
  if (EqualsIgnoreCase(k, "State")) return SetPartitionState(v, p);
  if (EqualsIgnoreCase(k, "MaxNodes")) {
    if (EqualsIgnoreCase(v, "UNLIMITED") || EqualsIgnoreCase(v, "INFINITE")) {
      return (p->max_nodes = 0, Status::Ok());
    }
    return ParseIntValue("MaxNodes", v, 0, kMaxCount, &p->max_nodes);
  }
  if (EqualsIgnoreCase(k, "PriorityJobFactor")) {
    return ParseIntValue("PriorityJobFactor", v, 0, 65533, &p->priority_job_factor);
  }
  if (EqualsIgnoreCase(k, "PriorityTier")) {
    return ParseIntValue("PriorityTier", v, 0, 65533, &p->priority_tier);
  }
  if (EqualsIgnoreCase(k, "AllowAccounts")) return SetAccessList(v, &p->allow_accounts);
  if (EqualsIgnoreCase(k, "DenyAccounts")) return SetAccessList(v, &p->deny_accounts);
  if (EqualsIgnoreCase(k, "AllowQos")) return SetAccessList(v, &p->allow_qos);
  if (EqualsIgnoreCase(k, "AllowGroups")) return SetAccessList(v, &p->allow_groups);
  if (EqualsIgnoreCase(k, "OverSubscribe") || EqualsIgnoreCase(k, "Shared")) {
    const std::string mode = v.substr(0, v.find(':'));
    for (const char* ok : {"NO", "YES", "FORCE", "EXCLUSIVE"}) {
      if (EqualsIgnoreCase(mode, ok)) {
        p->exclusive = EqualsIgnoreCase(mode, "EXCLUSIVE");
        return Status::Ok();
      }
    }
    return InvalidArgument(fmt::format("invalid value '{}' for {}", v, k));
  }
  if (IsPartitionPreemptKey(k)) return SetPartitionPreemptKey(k, v, p);
  if (IsIgnoredPartitionKey(k)) return Status::Ok();
  return InvalidArgument(fmt::format("unknown key '{}'", k));
}

Expected<std::vector<std::string>> PartitionNodes(const PartitionConfig& p, const Config& c) {
  std::vector<std::string> out;
  if (EqualsIgnoreCase(p.nodes_expr, "ALL")) {
    for (const auto& n : c.nodes) out.push_back(n.name);
    return out;
  }
  // Names may repeat (they collapse): bounded by ExpandHostlist, deduplicated by a set.
  ASSIGN_OR_RETURN(auto names, ExpandHostlist(p.nodes_expr));
  std::unordered_set<std::string_view> known, added;
  for (const auto& n : c.nodes) known.insert(n.name);
  for (auto& name : names) {
    if (!known.count(name)) {
      return InvalidArgument(
          fmt::format("partition '{}' references unknown node '{}'", p.name, name));
    }
    if (added.insert(name).second) out.push_back(name);
  }
  return out;
}

}  // namespace

Status ParseNodeLine(const ConfigLine& line, ParseContext* ctx) {
  if (HasKey(line, "Name")) {  // an inline gres.conf line
    ctx->gres_lines.push_back(line);
    return Status::Ok();
  }
  const std::string& names_expr = line.pairs.front().value;
  NodeSpec spec;
  for (const auto& p : ctx->node_defaults) RETURN_IF_ERROR(ApplyNodeKey(p, &spec));
  for (size_t i = 1; i < line.pairs.size(); ++i) {
    RETURN_IF_ERROR(AtLine(ApplyNodeKey(line.pairs[i], &spec), ctx->path, line.line_no));
  }
  if (EqualsIgnoreCase(names_expr, "DEFAULT")) {
    ctx->node_defaults.insert(ctx->node_defaults.end(), line.pairs.begin() + 1, line.pairs.end());
    return Status::Ok();
  }
  if (names_expr.empty()) return ConfigError(ctx->path, line.line_no, "empty NodeName");
  auto count = CountHostlist(names_expr);
  RETURN_IF_ERROR(AtLine(count.status(), ctx->path, line.line_no));
  if (ctx->config->nodes.size() + *count > kMaxConfigNodes) {
    return ConfigError(ctx->path, line.line_no,
                       fmt::format("more than {} nodes in the configuration", kMaxConfigNodes));
  }
  auto names = ExpandHostlist(names_expr);
  RETURN_IF_ERROR(AtLine(names.status(), ctx->path, line.line_no));
  FinishTopology(&spec);
  return AddNodes(*names, spec, line.line_no, ctx);
}

Status ParsePartitionLine(const ConfigLine& line, ParseContext* ctx) {
  PartitionConfig part;
  part.name = line.pairs.front().value;
  for (const auto& p : ctx->part_defaults) RETURN_IF_ERROR(ApplyPartitionKey(p, &part));
  for (size_t i = 1; i < line.pairs.size(); ++i) {
    RETURN_IF_ERROR(AtLine(ApplyPartitionKey(line.pairs[i], &part), ctx->path, line.line_no));
  }
  if (EqualsIgnoreCase(part.name, "DEFAULT")) {
    ctx->part_defaults.insert(ctx->part_defaults.end(), line.pairs.begin() + 1, line.pairs.end());
    return Status::Ok();
  }
  if (part.name.empty()) return ConfigError(ctx->path, line.line_no, "empty PartitionName");
  for (const auto& other : ctx->partitions) {
    if (other.part.name == part.name) {
      return ConfigError(ctx->path, line.line_no,
                         fmt::format("duplicate partition '{}'", part.name));
    }
  }
  ctx->partitions.push_back(PendingPartition{std::move(part), line.line_no});
  return Status::Ok();
}

Status FinishPartitions(ParseContext* ctx) {
  Config* c = ctx->config;
  for (auto& pending : ctx->partitions) {
    PartitionConfig& p = pending.part;
    if (!p.nodes_expr.empty()) {
      auto nodes = PartitionNodes(p, *c);
      RETURN_IF_ERROR(AtLine(nodes.status(), ctx->path, pending.line_no));
      p.nodes = std::move(*nodes);
    }
    if (p.is_default) {
      for (auto& earlier : c->partitions) earlier.is_default = false;  // last one wins
    }
    c->partitions.push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace sluice
