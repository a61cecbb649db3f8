// topology.conf: a tree of switches over the configured nodes (see ApplyTopologyConf).
#include <fmt/format.h>

#include <map>

#include "common/config_internal.h"
#include "common/hostlist.h"
#include "common/text_util.h"

namespace sluice {
namespace {

Expected<SwitchConfig> ParseSwitchLine(const ConfigLine& line, const Config& config) {
  SwitchConfig sw;
  for (const ConfigPair& p : line.pairs) {
    if (EqualsIgnoreCase(p.key, "SwitchName")) {
      sw.name = p.value;
    } else if (EqualsIgnoreCase(p.key, "Nodes")) {
      ASSIGN_OR_RETURN(sw.nodes, ExpandHostlist(p.value));
      for (const std::string& n : sw.nodes)
        if (config.FindNode(n) == nullptr)
          return InvalidArgument(fmt::format("switch {}: unknown node '{}'", sw.name, n));
    } else if (EqualsIgnoreCase(p.key, "Switches")) {
      ASSIGN_OR_RETURN(sw.switches, ExpandHostlist(p.value));
    } else if (!EqualsIgnoreCase(p.key, "LinkSpeed")) {
      return InvalidArgument(fmt::format("unknown key '{}'", p.key));
    }
  }
  if (sw.name.empty()) return InvalidArgument("SwitchName is empty");
  return sw;
}

// Every child switch exists, no switch has two parents, and there is no cycle.
Status CheckTree(const std::vector<SwitchConfig>& switches, const std::vector<int>& lines,
                 std::string_view path) {
  std::map<std::string, int> index;
  for (size_t i = 0; i < switches.size(); ++i) index[switches[i].name] = static_cast<int>(i);
  std::vector<int> parent(switches.size(), -1);
  for (size_t i = 0; i < switches.size(); ++i) {
    for (const std::string& child : switches[i].switches) {
      auto it = index.find(child);
      if (it == index.end())
        return ConfigError(path, lines[i],
                           fmt::format("switch {}: unknown switch '{}'", switches[i].name, child));
      if (parent[it->second] >= 0 || it->second == static_cast<int>(i))
        return ConfigError(path, lines[i],
                           fmt::format("switch {} has more than one parent", child));
      parent[it->second] = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < switches.size(); ++i) {
    size_t hops = 0;
    for (int p = parent[i]; p >= 0; p = parent[p])
      if (++hops > switches.size())
        return ConfigError(path, lines[i],
                           fmt::format("switch {} is part of a cycle", switches[i].name));
  }
  return Status::Ok();
}

}  // namespace

Status ApplyTopologyConf(std::string_view text, std::string_view path, Config* config) {
  ASSIGN_OR_RETURN(auto lines, LexConfig(text, path));
  std::vector<SwitchConfig> switches;
  std::vector<int> line_nos;
  std::map<std::string, std::string> leaf_of;  // node -> switch
  for (const ConfigLine& line : lines) {
    auto sw = ParseSwitchLine(line, *config);
    if (!sw.ok()) return AtLine(sw.status(), path, line.line_no);
    for (const SwitchConfig& other : switches)
      if (other.name == sw->name)
        return ConfigError(path, line.line_no, fmt::format("switch {} defined twice", sw->name));
    for (const std::string& n : sw->nodes) {
      auto [it, added] = leaf_of.emplace(n, sw->name);
      if (!added)
        return ConfigError(
            path, line.line_no,
            fmt::format("node {} is under switches {} and {}", n, it->second, sw->name));
    }
    switches.push_back(std::move(sw).value());
    line_nos.push_back(line.line_no);
  }
  RETURN_IF_ERROR(CheckTree(switches, line_nos, path));
  config->switches = std::move(switches);
  return Status::Ok();
}

}  // namespace sluice
