#include "ctld/runtime/config_diff.h"

#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/hostlist.h"

namespace sluice::ctld {
namespace {

// Read once, when sluicectld starts (or by the agents' fencing: SlurmdTimeout).
const std::set<std::string> kRestartKeys = {
    "AuthAltParameters", "AuthAltTypes",     "AuthInfo",         "AuthType",
    "ClusterKeyFile",    "ClusterName",      "ControlAddr",      "ControlMachine",
    "CredType",          "IdentSocket",      "MessageTimeout",   "MetricsPort",
    "MinJobAge",         "RestPort",         "SlurmUser",        "SlurmctldHost",
    "SlurmctldLogFile",  "SlurmctldPidFile", "SlurmctldPort",    "SlurmctldTimeout",
    "SlurmdPort",        "SlurmdTimeout",    "StateSaveLocation"};

// Read by sluiced at its start only.
const std::set<std::string> kAgentKeys = {"Epilog",
                                          "GpuHealthCheckInterval",
                                          "HealthCheckInterval",
                                          "HealthCheckNodeState",
                                          "HealthCheckProgram",
                                          "HeartbeatInterval",
                                          "JobAcctGatherFrequency",
                                          "ProctrackType",
                                          "Prolog",
                                          "PrologEpilogTimeout",
                                          "SlurmdDebug",
                                          "SlurmdLogFile",
                                          "SlurmdParameters",
                                          "SlurmdPidFile",
                                          "SlurmdSpoolDir",
                                          "SlurmdUser",
                                          "TaskPlugin"};

bool NeedsRestart(const std::string& key) {
  if (kRestartKeys.count(key)) return true;
  auto starts = [&](const char* prefix) { return key.rfind(prefix, 0) == 0; };
  return starts("StateStorage") ||
         (starts("AccountingStorage") && key != "AccountingStorageEnforce");
}

std::string Shown(const std::string& v) { return v.empty() ? "(unset)" : v; }

// A node's or partition's settings as one comparable string.
std::string Settings(const NodeConfig& n) {
  std::string gpus;
  for (const GpuDef& g : n.gpus)
    gpus += fmt::format("{}:{}:{}:{};", g.type, g.file, g.links, g.cores);
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", n.addr, n.port, n.cpus, n.sockets,
                     n.cores_per_socket, n.threads_per_core, n.real_memory_mb, n.tmp_disk_mb, gpus,
                     fmt::join(n.features, ","), n.gpu_autodetect);
}

std::string Settings(const PartitionConfig& p) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", fmt::join(p.nodes, ","),
                     p.is_default, p.max_time_min, p.default_time_min, p.up, p.max_nodes,
                     p.priority_job_factor, p.priority_tier, fmt::join(p.allow_accounts, ","),
                     fmt::join(p.deny_accounts, ","), fmt::join(p.allow_qos, ","),
                     fmt::join(p.allow_groups, ","), p.exclusive, p.grace_time_s);
}

// Added, changed and removed entries of two name -> settings maps (all live), one line
// for each of the three that happened: the names as a hostlist ("node[01-64]").
// `kept_note` follows a change to or the removal of an entry that the file does not own.
void DiffNamed(const std::string& kind, const std::map<std::string, std::string>& before,
               const std::map<std::string, std::string>& after, std::vector<ConfigChange>* out,
               const std::string& kept_note = "") {
  std::vector<std::string> added, changed, removed;
  for (const auto& [name, settings] : after) {
    auto it = before.find(name);
    if (it == before.end()) {
      added.push_back(name);
    } else if (it->second != settings) {
      changed.push_back(name);
    }
  }
  for (const auto& [name, settings] : before)
    if (!after.count(name)) removed.push_back(name);
  auto line = [&](const std::vector<std::string>& names, const char* what,
                  const std::string& note) {
    if (!names.empty())
      out->push_back(
          {fmt::format("{} {} {}{}", kind, CompressHostlistSorted(names), what, note), true});
  };
  line(added, "added", "");
  line(changed, "changed", kept_note);
  line(removed, "removed", kept_note);
}

template <typename T, typename Name, typename Value>
std::map<std::string, std::string> Named(const std::vector<T>& items, Name name, Value value) {
  std::map<std::string, std::string> out;
  for (const T& item : items) out[name(item)] = value(item);
  return out;
}

}  // namespace

std::vector<ConfigChange> DiffConfigs(const Config& before, const Config& after) {
  std::vector<ConfigChange> out;
  std::set<std::string> keys;
  for (const auto& [k, v] : before.raw) keys.insert(k);
  for (const auto& [k, v] : after.raw) keys.insert(k);
  for (const std::string& k : keys) {
    auto b = before.raw.find(k);
    auto a = after.raw.find(k);
    const std::string old_v = b == before.raw.end() ? "" : b->second;
    const std::string new_v = a == after.raw.end() ? "" : a->second;
    if (old_v == new_v) continue;
    std::string what = fmt::format("{}: {} -> {}", k, Shown(old_v), Shown(new_v));
    if (kAgentKeys.count(k)) what += " (the agents take it when restarted)";
    out.push_back({std::move(what), !NeedsRestart(k)});
  }
  auto node_name = [](const NodeConfig& n) { return n.name; };
  auto node_settings = [](const NodeConfig& n) { return Settings(n); };
  DiffNamed("node", Named(before.nodes, node_name, node_settings),
            Named(after.nodes, node_name, node_settings), &out);
  auto part_name = [](const PartitionConfig& p) { return p.name; };
  auto part_settings = [](const PartitionConfig& p) { return Settings(p); };
  DiffNamed("partition", Named(before.partitions, part_name, part_settings),
            Named(after.partitions, part_name, part_settings), &out);
  auto account_name = [](const AccountDef& a) { return a.name; };
  auto account_settings = [](const AccountDef& a) {
    return fmt::format("{}|{}", a.parent, a.shares);
  };
  // The association database owns an account or user once it was created (sacctmgr).
  const std::string sacctmgr_note = " (the association database keeps it: use sacctmgr)";
  DiffNamed("account", Named(before.accounts, account_name, account_settings),
            Named(after.accounts, account_name, account_settings), &out, sacctmgr_note);
  auto user_name = [](const UserAssocDef& u) { return u.user + "@" + u.account; };
  auto user_settings = [](const UserAssocDef& u) { return fmt::format("{}", u.shares); };
  DiffNamed("user association", Named(before.user_assocs, user_name, user_settings),
            Named(after.user_assocs, user_name, user_settings), &out, sacctmgr_note);
  auto switch_name = [](const SwitchConfig& s) { return s.name; };
  auto switch_settings = [](const SwitchConfig& s) {
    return fmt::format("{}|{}", fmt::join(s.nodes, ","), fmt::join(s.switches, ","));
  };
  DiffNamed("switch", Named(before.switches, switch_name, switch_settings),
            Named(after.switches, switch_name, switch_settings), &out);
  return out;
}

}  // namespace sluice::ctld
