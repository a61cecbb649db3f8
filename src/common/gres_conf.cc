// gres.conf lines: GPU device definitions applied onto parsed nodes (see config.h).
#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "common/config_internal.h"
#include "common/hostlist.h"
#include "common/text_util.h"

namespace sluice {
namespace {

constexpr int64_t kMaxGpusPerLine = 1024;

struct GresLine {
  std::string nodes_expr;
  std::string name;
  std::string type;
  std::string count;
  std::string file;
  std::string links;
  std::string cores;
  std::string autodetect;  // AutoDetect= in lower case: "nvml", "off" or "" (not given)
};

Status ReadGresKey(const ConfigPair& p, GresLine* g) {
  struct Field {
    const char* key;
    std::string GresLine::*member;
  };
  static const Field kFields[] = {
      {"NodeName", &GresLine::nodes_expr},
      {"Name", &GresLine::name},
      {"Type", &GresLine::type},
      {"Count", &GresLine::count},
      {"File", &GresLine::file},
      {"Links", &GresLine::links},
      {"Cores", &GresLine::cores},
      {"CPUs", &GresLine::cores},
      {"AutoDetect", &GresLine::autodetect},
  };
  for (const auto& f : kFields) {
    if (EqualsIgnoreCase(p.key, f.key)) return (g->*f.member = p.value, Status::Ok());
  }
  for (const char* ignored : {"Flags", "MultipleFiles"}) {
    if (EqualsIgnoreCase(p.key, ignored)) return Status::Ok();
  }
  return InvalidArgument(fmt::format("unknown key '{}'", p.key));
}

// The device definitions one line gives each of its nodes.
Expected<std::vector<GpuDef>> LineDevices(const GresLine& g) {
  std::vector<std::string> files;
  if (!g.file.empty()) {
    ASSIGN_OR_RETURN(files, ExpandHostlist(g.file));
  }
  int64_t count = files.empty() ? 1 : static_cast<int64_t>(files.size());
  if (!g.count.empty()) {
    RETURN_IF_ERROR(ParseIntValue("Count", g.count, int64_t{1}, kMaxGpusPerLine, &count));
    if (!files.empty() && count != static_cast<int64_t>(files.size())) {
      return InvalidArgument(
          fmt::format("Count={} but File= names {} devices", count, files.size()));
    }
  }
  if (count > kMaxGpusPerLine) return InvalidArgument("too many devices on one line");
  std::vector<GpuDef> out(count);
  for (int64_t i = 0; i < count; ++i) {
    out[i].type = g.type;
    out[i].file = files.empty() ? "" : files[i];
    out[i].links = g.links;
    out[i].cores = g.cores;
  }
  return out;
}

// Tracks which nodes the gres lines replaced, to check counts at the end.
struct Touched {
  size_t configured = 0;           // GPUs from Gres= before the first gres line
  std::vector<std::string> types;  // their types, used when a line gives none
  int last_line = 0;
};

void AddDevices(const std::vector<GpuDef>& devs, int line_no, NodeConfig* node,
                std::map<std::string, Touched>* touched) {
  auto [it, first] = touched->try_emplace(node->name);
  if (first) {
    it->second.configured = node->gpus.size();
    for (const auto& g : node->gpus) it->second.types.push_back(g.type);
    node->gpus.clear();
  }
  it->second.last_line = line_no;
  for (GpuDef d : devs) {
    d.index = static_cast<int>(node->gpus.size());
    if (d.type.empty() && static_cast<size_t>(d.index) < it->second.types.size()) {
      d.type = it->second.types[d.index];
    }
    node->gpus.push_back(std::move(d));
  }
}

Expected<std::vector<NodeConfig*>> LineNodes(const GresLine& g, Config* config,
                                             const std::unordered_map<std::string, size_t>& index) {
  std::vector<NodeConfig*> out;
  if (g.nodes_expr.empty()) {
    for (auto& n : config->nodes) out.push_back(&n);
    return out;
  }
  ASSIGN_OR_RETURN(auto names, ExpandHostlist(g.nodes_expr));
  for (const auto& name : names) {
    auto it = index.find(name);
    if (it == index.end()) return InvalidArgument(fmt::format("unknown node '{}'", name));
    out.push_back(&config->nodes[it->second]);
  }
  return out;
}

// AutoDetect=nvml|off on a line: for the nodes it names (every node when it names none).
Status ApplyAutoDetect(const GresLine& g, Config* config,
                       const std::unordered_map<std::string, size_t>& index) {
  if (g.autodetect.empty()) return Status::Ok();
  std::string mode = ToLower(g.autodetect);
  if (mode != "nvml" && mode != "off") {
    return InvalidArgument(
        fmt::format("AutoDetect={} is not supported (nvml or off)", g.autodetect));
  }
  ASSIGN_OR_RETURN(auto nodes, LineNodes(g, config, index));
  for (NodeConfig* n : nodes) n->gpu_autodetect = mode == "nvml" ? "nvml" : "";
  return Status::Ok();
}

Status ApplyLine(const ConfigLine& line, Config* config,
                 const std::unordered_map<std::string, size_t>& index,
                 std::map<std::string, Touched>* touched) {
  GresLine g;
  for (const auto& p : line.pairs) RETURN_IF_ERROR(ReadGresKey(p, &g));
  RETURN_IF_ERROR(ApplyAutoDetect(g, config, index));
  if (g.name.empty()) {
    bool only_options = g.type.empty() && g.count.empty() && g.file.empty() &&
                        (g.nodes_expr.empty() || !g.autodetect.empty());
    return only_options ? Status::Ok() : InvalidArgument("missing Name=");
  }
  if (!EqualsIgnoreCase(g.name, "gpu")) return Status::Ok();
  ASSIGN_OR_RETURN(auto devs, LineDevices(g));
  ASSIGN_OR_RETURN(auto nodes, LineNodes(g, config, index));
  for (NodeConfig* n : nodes) AddDevices(devs, line.line_no, n, touched);
  return Status::Ok();
}

}  // namespace

Status ApplyGresLines(const std::vector<ConfigLine>& lines, std::string_view path, Config* config) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < config->nodes.size(); ++i) index[config->nodes[i].name] = i;
  std::map<std::string, Touched> touched;
  for (const auto& line : lines) {
    RETURN_IF_ERROR(AtLine(ApplyLine(line, config, index, &touched), path, line.line_no));
  }
  for (const auto& [name, t] : touched) {
    const NodeConfig& n = config->nodes[index[name]];
    if (t.configured != 0 && t.configured != n.gpus.size()) {
      return ConfigError(path, t.last_line,
                         fmt::format("node '{}' has {} GPUs in Gres= but {} in gres.conf", name,
                                     t.configured, n.gpus.size()));
    }
  }
  return Status::Ok();
}

}  // namespace sluice
