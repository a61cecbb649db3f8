// ParseConfig, LoadConfigFile and the global keys (declared in config.h).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/config.h"
#include "common/config_internal.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

using Setter = Status (*)(std::string_view v, ParseContext* ctx);

struct GlobalKey {
  const char* name;
  Setter set;
};

Status SetTopologyPlugin(std::string_view v, ParseContext* c) {
  if (EqualsIgnoreCase(v, "topology/tree")) return (c->config->topology_tree = true, Status::Ok());
  if (EqualsIgnoreCase(v, "topology/none") || EqualsIgnoreCase(v, "topology/default") ||
      EqualsIgnoreCase(v, "(null)"))
    return (c->config->topology_tree = false, Status::Ok());
  return InvalidArgument(fmt::format(
      "invalid value '{}' for TopologyPlugin: expected topology/tree or topology/none", v));
}

Status SetCtldHost(std::string_view v, ParseContext* ctx) {
  std::string_view name = v, addr = v;
  size_t open = v.find('(');
  if (open != std::string_view::npos) {
    if (v.back() != ')' || open == 0) {
      return InvalidArgument(
          fmt::format("invalid SlurmctldHost '{}': expected name or name(addr)", v));
    }
    name = v.substr(0, open);
    addr = v.substr(open + 1, v.size() - open - 2);
  }
  if (name.empty() || addr.empty()) return InvalidArgument("SlurmctldHost is empty");
  ctx->config->ctld_hosts.push_back({std::string(name), std::string(addr)});
  if (ctx->ctld_host_set) return Status::Ok();  // later ones are backups
  ctx->config->ctld_host_name = std::string(name);
  ctx->config->ctld_host = std::string(addr);
  ctx->ctld_host_set = true;
  return Status::Ok();
}

Status SetControlAddr(std::string_view v, ParseContext* ctx) {
  if (v.empty()) return InvalidArgument("ControlAddr is empty");
  ctx->config->ctld_host = std::string(v);
  ctx->ctld_host_set = true;
  return Status::Ok();
}

Status SetControlMachine(std::string_view v, ParseContext* ctx) {
  if (v.empty()) return InvalidArgument("ControlMachine is empty");
  ctx->config->ctld_host_name = std::string(v);
  if (ctx->config->raw.count("ControlAddr") == 0) ctx->config->ctld_host = std::string(v);
  ctx->ctld_host_set = true;
  return Status::Ok();
}

Status SetPort(std::string_view key, std::string_view v, int* out) {
  // Slurm allows a port range for the controller; the first port is the one used.
  std::string_view first = v.substr(0, v.find('-'));
  return ParseIntValue(key, first, 1, 65535, out);
}

Status SetMemPerCpu(std::string_view v, ParseContext* ctx) {
  return ParseSizeValue("DefMemPerCPU", v, 0, &ctx->config->def_mem_per_cpu_mb);
}

Status SetString(std::string_view key, std::string_view v, std::string* out) {
  if (v.empty()) return InvalidArgument(fmt::format("empty value for {}", key));
  *out = std::string(v);
  return Status::Ok();
}

Status Ignore(std::string_view, ParseContext*) { return Status::Ok(); }

constexpr int kMaxSeconds = 1 << 30;

// HealthCheckNodeState: comma list of ALLOC, ANY, CYCLE, IDLE, MIXED, NONDRAINED_IDLE.
Status SetHealthNodeState(std::string_view v, ParseContext* ctx) {
  unsigned bits = 0;
  for (const std::string& item : ParseList(v)) {
    std::string u = ToUpper(item);
    if (u == "ANY")
      bits |= Config::kHealthAny;
    else if (u == "IDLE" || u == "NONDRAINED_IDLE")
      bits |= Config::kHealthIdle;
    else if (u == "ALLOC")
      bits |= Config::kHealthAlloc;
    else if (u == "MIXED")
      bits |= Config::kHealthMixed;
    else if (u == "CYCLE")
      bits |= Config::kHealthCycle;
    else
      return InvalidArgument(fmt::format("invalid value '{}' for HealthCheckNodeState", item));
  }
  if ((bits & Config::kHealthAny) == 0) bits |= Config::kHealthAny;  // CYCLE alone = all nodes
  ctx->config->health_check_node_state = bits;
  return Status::Ok();
}

// JobAcctGatherFrequency: "30" or "task=30[,energy=0,...]" (only task= is used).
Status SetAcctGatherFrequency(std::string_view v, ParseContext* ctx) {
  for (const std::string& item : ParseList(v)) {
    std::string_view value = item;
    if (StartsWithIgnoreCase(value, "task=")) {
      value.remove_prefix(5);
    } else if (item.find('=') != std::string::npos) {
      continue;  // energy=, network=, filesystem=: not gathered
    }
    RETURN_IF_ERROR(ParseIntValue("JobAcctGatherFrequency", value, 0, kMaxSeconds,
                                  &ctx->config->acct_gather_task_s));
  }
  return Status::Ok();
}

Status SetGpuHealthAction(std::string_view v, ParseContext* ctx) {
  std::string u = ToUpper(v);
  if (u != "DRAIN" && u != "WITHHOLD") {
    return InvalidArgument(
        fmt::format("invalid value '{}' for GpuHealthAction (DRAIN or WITHHOLD)", v));
  }
  ctx->config->gpu_health_withhold = u == "WITHHOLD";
  return Status::Ok();
}

const GlobalKey kGlobalKeys[] = {
    {"ClusterName",
     [](auto v, auto* c) {
       RETURN_IF_ERROR(SetString("ClusterName", v, &c->config->cluster_name));
       c->config->cluster_name = ToLower(v);
       return Status::Ok();
     }},
    {"SlurmctldHost", SetCtldHost},
    {"ControlMachine", SetControlMachine},
    {"ControlAddr", SetControlAddr},
    {"SlurmctldPort",
     [](auto v, auto* c) { return SetPort("SlurmctldPort", v, &c->config->ctld_port); }},
    {"SlurmdPort",
     [](auto v, auto* c) { return SetPort("SlurmdPort", v, &c->config->slurmd_port); }},
    {"StateSaveLocation",
     [](auto v, auto* c) {
       return SetString("StateSaveLocation", v, &c->config->state_save_location);
     }},
    {"SlurmdSpoolDir",
     [](auto v, auto* c) { return SetString("SlurmdSpoolDir", v, &c->config->slurmd_spool_dir); }},
    {"ClusterKeyFile",
     [](auto v, auto* c) { return SetString("ClusterKeyFile", v, &c->config->cluster_key_file); }},
    {"IdentSocket",
     [](auto v, auto* c) { return SetString("IdentSocket", v, &c->config->ident_socket); }},
    {"GresConf", [](auto v, auto* c) { return SetString("GresConf", v, &c->config->gres_conf); }},
    {"KillWait",
     [](auto v, auto* c) {
       return ParseIntValue("KillWait", v, 0, kMaxSeconds, &c->config->kill_wait_s);
     }},
    {"MessageTimeout",
     [](auto v, auto* c) {
       return ParseIntValue("MessageTimeout", v, 1, 3600, &c->config->message_timeout_s);
     }},
    {"SlurmdTimeout",
     [](auto v, auto* c) {
       return ParseIntValue("SlurmdTimeout", v, 0, kMaxSeconds, &c->config->slurmd_timeout_s);
     }},
    {"HeartbeatInterval",
     [](auto v, auto* c) {
       return ParseIntValue("HeartbeatInterval", v, 0, kMaxSeconds,
                            &c->config->heartbeat_interval_s);
     }},
    {"MinJobAge",
     [](auto v, auto* c) {
       return ParseIntValue("MinJobAge", v, 0, kMaxSeconds, &c->config->min_job_age_s);
     }},
    {"MetricsPort",  // Sluice: the controller's HTTP port for Prometheus (0 = none)
     [](auto v, auto* c) {
       return ParseIntValue("MetricsPort", v, 0, 65535, &c->config->metrics_port);
     }},
    {"RestPort",  // Sluice: where sluicerestd listens on the controller's host (0 = none)
     [](auto v, auto* c) { return ParseIntValue("RestPort", v, 0, 65535, &c->config->rest_port); }},
    {"MaxArraySize",
     [](auto v, auto* c) {
       return ParseIntValue("MaxArraySize", v, 0, 4000001, &c->config->max_array_size);
     }},
    {"JobRequeue",
     [](auto v, auto* c) { return ParseBoolValue("JobRequeue", v, &c->config->job_requeue); }},
    {"DefMemPerCPU", SetMemPerCpu},
    {"TopologyPlugin", SetTopologyPlugin},
    {"HealthCheckProgram",
     [](auto v, auto* c) {
       return SetString("HealthCheckProgram", v, &c->config->health_check_program);
     }},
    {"HealthCheckInterval",
     [](auto v, auto* c) {
       return ParseIntValue("HealthCheckInterval", v, 0, kMaxSeconds,
                            &c->config->health_check_interval_s);
     }},
    {"HealthCheckNodeState", SetHealthNodeState},
    {"GpuHealthCheckInterval",  // Sluice: the agent's NVML check of its GPUs (AutoDetect=nvml)
     [](auto v, auto* c) {
       return ParseIntValue("GpuHealthCheckInterval", v, 0, kMaxSeconds,
                            &c->config->gpu_health_check_interval_s);
     }},
    {"GpuHealthAction", SetGpuHealthAction},
    {"Prolog", [](auto v, auto* c) { return SetString("Prolog", v, &c->config->prolog); }},
    {"Epilog", [](auto v, auto* c) { return SetString("Epilog", v, &c->config->epilog); }},
    {"PrologEpilogTimeout",
     [](auto v, auto* c) {
       return ParseIntValue("PrologEpilogTimeout", v, 0, kMaxSeconds,
                            &c->config->prolog_epilog_timeout_s);
     }},
    {"GresTypes",
     [](auto v, auto* c) {
       c->config->gres_types = ParseList(v);
       return Status::Ok();
     }},
    // Accepted for slurm.conf compatibility, no effect.
    {"AuthType", Ignore},
    {"AuthAltTypes", Ignore},       // auth/jwt: read by the controller (ctld/services/jwt.h)
    {"AuthAltParameters", Ignore},  // jwt_key=FILE,...: the same
    {"CredType", Ignore},
    {"SlurmUser", Ignore},
    {"SlurmdUser", Ignore},
    {"ProctrackType", Ignore},
    {"SchedulerType", Ignore},
    {"SelectType", Ignore},
    {"SelectTypeParameters", Ignore},
    {"MpiDefault", Ignore},
    {"ReturnToService", Ignore},
    {"SlurmctldDebug",
     [](auto v, auto* c) { return SetString("SlurmctldDebug", v, &c->config->ctld_debug); }},
    {"SlurmdDebug", Ignore},
    {"SlurmctldLogFile", Ignore},
    {"SlurmdLogFile", Ignore},
    {"SlurmctldPidFile", Ignore},
    {"SlurmdPidFile", Ignore},
    {"SlurmSchedLogFile", Ignore},
    {"TaskPlugin", Ignore},
    {"SwitchType", Ignore},
    {"MaxJobCount", Ignore},
    {"InactiveLimit", Ignore},
    {"Waittime", Ignore},
    {"JobAcctGatherType", Ignore},
    {"JobAcctGatherFrequency", SetAcctGatherFrequency},
    {"JobCompType", Ignore},
    {"MailProg", Ignore},
    {"SlurmdParameters", Ignore},
    {"SlurmctldTimeout",  // how long a leader's lease lasts (state/pgsql high availability)
     [](auto v, auto* c) {
       return ParseIntValue("SlurmctldTimeout", v, 1, 3600, &c->config->ctld_timeout_s);
     }},
    {"SchedulerParameters", Ignore},  // read by ctld (scheduler_config.h)
    {"SrunTorchEnv", Ignore},  // yes (default) / no: RANK, MASTER_ADDR, ... for step tasks (ctld)
    {"AuthInfo", Ignore},      // socket=PATH of munged for AuthType=auth/munge (client, ctld)
    {"PrivateData", Ignore},   // jobs,usage,...: what non-admins may not see (ctld private_data.h)
};

const GlobalKey* FindGlobalKey(std::string_view key) {
  for (const auto& k : kGlobalKeys) {
    if (EqualsIgnoreCase(key, k.name)) return &k;
  }
  return nullptr;
}

Status ParseGlobalPair(const ConfigPair& p, int line_no, ParseContext* ctx) {
  if (IsPriorityKey(p.key)) {
    RETURN_IF_ERROR(
        AtLine(SetPriorityKey(p.key, p.value, &ctx->config->priority), ctx->path, line_no));
    ctx->config->raw[p.key] = p.value;
    return Status::Ok();
  }
  if (IsRequeueKey(p.key)) {
    RETURN_IF_ERROR(
        AtLine(SetRequeueKey(p.key, p.value, &ctx->config->requeue), ctx->path, line_no));
    ctx->config->raw[p.key] = p.value;
    return Status::Ok();
  }
  if (IsPreemptKey(p.key)) {
    RETURN_IF_ERROR(AtLine(SetPreemptKey(p.key, p.value, ctx->config), ctx->path, line_no));
    ctx->config->raw[p.key] = p.value;
    return Status::Ok();
  }
  if (IsStorageKey(p.key)) {
    RETURN_IF_ERROR(AtLine(SetStorageKey(p.key, p.value, ctx->config), ctx->path, line_no));
    ctx->config->raw[p.key] = p.value;
    return Status::Ok();
  }
  const GlobalKey* k = FindGlobalKey(p.key);
  if (k == nullptr) {
    if (StartsWithIgnoreCase(p.key, "AccountingStorage")) {
      ctx->config->raw[p.key] = p.value;
      return Status::Ok();
    }
    return ConfigError(ctx->path, line_no, fmt::format("unknown key '{}'", p.key));
  }
  bool backup_ctld = ctx->ctld_host_set && EqualsIgnoreCase(p.key, "SlurmctldHost");
  RETURN_IF_ERROR(AtLine(k->set(p.value, ctx), ctx->path, line_no));
  if (EqualsIgnoreCase(p.key, "GresConf")) ctx->gres_conf_line = line_no;
  if (!backup_ctld) ctx->config->raw[k->name] = p.value;
  return Status::Ok();
}

Status ParseLine(const ConfigLine& line, ParseContext* ctx) {
  const std::string& first = line.pairs.front().key;
  if (EqualsIgnoreCase(first, "NodeName")) return ParseNodeLine(line, ctx);
  if (EqualsIgnoreCase(first, "PartitionName")) return ParsePartitionLine(line, ctx);
  if (EqualsIgnoreCase(first, "AccountName")) return ParseAccountLine(line, ctx);
  if (EqualsIgnoreCase(first, "UserName")) return ParseUserAssocLine(line, ctx);
  for (const auto& p : line.pairs) {
    if (EqualsIgnoreCase(p.key, "NodeName") || EqualsIgnoreCase(p.key, "PartitionName")) {
      return ConfigError(ctx->path, line.line_no, fmt::format("{} must start its own line", p.key));
    }
    RETURN_IF_ERROR(ParseGlobalPair(p, line.line_no, ctx));
  }
  return Status::Ok();
}

std::string Folder(std::string_view path) {
  return std::filesystem::path(std::string(path)).parent_path().string();
}

std::string Resolve(std::string_view folder, const std::string& file) {
  if (file.empty() || file[0] == '/' || folder.empty()) return file;
  return (std::filesystem::path(std::string(folder)) / file).string();
}

// Reads the GresConf file named in the config, if any.
Status LoadGresConfKey(const ParseContext& ctx) {
  Config* config = ctx.config;
  if (config->gres_conf.empty()) return Status::Ok();
  config->gres_conf = Resolve(Folder(ctx.path), config->gres_conf);
  auto text = ReadWholeFile(config->gres_conf);
  if (!text.ok()) {
    return ConfigError(ctx.path, ctx.gres_conf_line,
                       fmt::format("GresConf: {}", text.status().message()));
  }
  return ApplyGresConf(*text, config->gres_conf, config);
}

void FillDefaults(Config* c) {
  if (c->cluster_key_file.empty()) c->cluster_key_file = c->state_save_location + "/cluster.key";
  if (c->ident_socket.empty()) c->ident_socket = c->state_save_location + "/ident.sock";
}

}  // namespace

Expected<Config> ParseConfig(std::string_view text, std::string_view path) {
  ASSIGN_OR_RETURN(auto lines, LexConfig(text, path));
  Config config;
  config.path = std::string(path);
  ParseContext ctx;
  ctx.path = path;
  ctx.config = &config;
  for (const auto& line : lines) RETURN_IF_ERROR(ParseLine(line, &ctx));
  RETURN_IF_ERROR(FinishPartitions(&ctx));
  RETURN_IF_ERROR(ApplyGresLines(ctx.gres_lines, path, &config));
  RETURN_IF_ERROR(LoadGresConfKey(ctx));
  FillDefaults(&config);
  for (size_t i = 0; i < config.nodes.size(); ++i)
    config.node_index.emplace(config.nodes[i].name, i);
  return config;
}

Expected<Config> LoadConfigFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  ASSIGN_OR_RETURN(Config config, ParseConfig(text, path));
  if (config.gres_conf.empty()) {
    std::string beside = Resolve(Folder(path), "gres.conf");
    if (Folder(path).empty()) beside = "gres.conf";
    std::error_code ec;
    if (std::filesystem::is_regular_file(beside, ec)) {
      ASSIGN_OR_RETURN(std::string gres, ReadWholeFile(beside));
      RETURN_IF_ERROR(ApplyGresConf(gres, beside, &config));
      config.gres_conf = beside;
    }
  }
  const std::string cgroup =
      Folder(path).empty() ? "cgroup.conf" : Resolve(Folder(path), "cgroup.conf");
  std::error_code ec;
  if (std::filesystem::is_regular_file(cgroup, ec)) {
    ASSIGN_OR_RETURN(std::string text, ReadWholeFile(cgroup));
    RETURN_IF_ERROR(ApplyCgroupConf(text, cgroup, &config));
  }
  if (config.topology_tree) {
    const std::string topo =
        Folder(path).empty() ? "topology.conf" : Resolve(Folder(path), "topology.conf");
    auto text = ReadWholeFile(topo);
    if (!text.ok())
      return InvalidArgument(
          fmt::format("TopologyPlugin=topology/tree: {}", text.status().message()));
    RETURN_IF_ERROR(ApplyTopologyConf(*text, topo, &config));
    config.topology_conf = topo;
  }
  return config;
}

Status ApplyGresConf(std::string_view text, std::string_view path, Config* config) {
  ASSIGN_OR_RETURN(auto lines, LexConfig(text, path));
  return ApplyGresLines(lines, path, config);
}

std::string DefaultConfigPath() {
  const char* env = std::getenv("SLUICE_CONF");
  if (env != nullptr && *env != '\0') return env;
  return "/etc/sluice/sluice.conf";
}

const NodeConfig* Config::FindNode(std::string_view name) const {
  if (auto it = node_index.find(std::string(name));
      it != node_index.end() && it->second < nodes.size() && nodes[it->second].name == name) {
    return &nodes[it->second];
  }
  for (const auto& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

const PartitionConfig* Config::FindPartition(std::string_view name) const {
  for (const auto& p : partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const PartitionConfig* Config::DefaultPartition() const {
  for (const auto& p : partitions) {
    if (p.is_default) return &p;
  }
  return nullptr;
}

int Config::HeartbeatIntervalS() const {
  if (heartbeat_interval_s > 0) return heartbeat_interval_s;
  return std::clamp(slurmd_timeout_s / 3, 1, 30);
}

std::vector<CtldHost> Config::Controllers() const {
  std::vector<CtldHost> out = ctld_hosts;
  if (out.empty()) out.push_back({ctld_host_name, ctld_host});
  out[0].addr = ctld_host;  // ControlAddr may name the primary's address
  return out;
}

// ---------------------------------------------------------------- value helpers

Status AtLine(const Status& st, std::string_view path, int line) {
  if (st.ok()) return st;
  return ConfigError(path, line, st.message());
}

Status ParseIntValue(std::string_view key, std::string_view value, int64_t min, int64_t max,
                     int64_t* out) {
  int64_t v = 0;
  if (!ParseNonNegative(value, &v) || v < min || v > max) {
    return InvalidArgument(fmt::format("invalid value '{}' for {}: expected a number from {} to {}",
                                       value, key, min, max));
  }
  *out = v;
  return Status::Ok();
}

Status ParseSizeValue(std::string_view key, std::string_view value, int64_t min_mb, int64_t* out) {
  constexpr int64_t kMaxMb = int64_t{1} << 40;
  Expected<int64_t> mb = ParseMemoryMb(value);
  if (!mb.ok() || *mb < min_mb || *mb > kMaxMb) {
    return InvalidArgument(
        fmt::format("invalid value '{}' for {}: \"{}\" is not a valid size (MB, or a number with a "
                    "K/M/G/T suffix, from {} to {})",
                    value, key, value, min_mb, FormatMemoryMb(kMaxMb)));
  }
  *out = *mb;
  return Status::Ok();
}

Status ParseIntValue(std::string_view key, std::string_view value, int min, int max, int* out) {
  int64_t v = 0;
  RETURN_IF_ERROR(
      ParseIntValue(key, value, static_cast<int64_t>(min), static_cast<int64_t>(max), &v));
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status ParseBoolValue(std::string_view key, std::string_view value, bool* out) {
  for (const char* yes : {"YES", "1", "TRUE"}) {
    if (EqualsIgnoreCase(value, yes)) return (*out = true, Status::Ok());
  }
  for (const char* no : {"NO", "0", "FALSE"}) {
    if (EqualsIgnoreCase(value, no)) return (*out = false, Status::Ok());
  }
  return InvalidArgument(fmt::format("invalid value '{}' for {}: expected YES or NO", value, key));
}

std::vector<std::string> ParseList(std::string_view value) {
  std::vector<std::string> out;
  if (EqualsIgnoreCase(value, "(null)")) return out;
  for (std::string_view item : Split(value, ',')) {
    item = Trim(item);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

Expected<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Unavailable(fmt::format("error reading '{}'", path));
  return ss.str();
}

}  // namespace sluice
