#include "cli/sinfo_format.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "cli/node_view.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"

namespace sluice {
namespace {

struct FieldName {
  const char* key;
  const char* name;
  const char* header;
};

constexpr FieldName kFields[] = {
    {"a", "available", "AVAIL"},
    {"A", "nodeai", "NODES(A/I)"},
    {"b", "featuresact", "ACTIVE_FEATURES"},
    {"c", "cpus", "CPUS"},
    {"C", "cpusstate", "CPUS(A/I/O/T)"},
    {"d", "disk", "TMP_DISK"},
    {"D", "nodes", "NODES"},
    {"e", "freemem", "FREE_MEM"},
    {"E", "reason", "REASON"},
    {"f", "features", "AVAIL_FEATURES"},
    {"F", "nodeaiot", "NODES(A/I/O/T)"},
    {"g", "groups", "GROUPS"},
    {"G", "gres", "GRES"},
    {"h", "oversubscribe", "OVERSUBSCRIBE"},
    {"H", "timestamp", "TIMESTAMP"},
    {"l", "time", "TIMELIMIT"},
    {"L", "defaulttime", "DEFAULTTIME"},
    {"m", "memory", "MEMORY"},
    {"n", "nodehost", "HOSTNAMES"},
    {"N", "nodelist", "NODELIST"},
    {"o", "nodeaddr", "NODE_ADDR"},
    {"O", "cpusload", "CPU_LOAD"},
    {"p", "prioritytier", "PRIO_TIER"},
    {"P", "partition", "PARTITION"},
    {"r", "root", "ROOT"},
    {"R", "partitionname", "PARTITION"},
    {"s", "size", "JOB_SIZE"},
    {"t", "statecompact", "STATE"},
    {"T", "statelong", "STATE"},
    {"u", "user", "USER"},
    {"U", "userlong", "USER"},
    {"w", "weight", "WEIGHT"},
    {"X", "sockets", "SOCKETS"},
    {"Y", "cores", "CORES"},
    {"Z", "threads", "THREADS"},
    {"z", "extendedprocs", "S:C:T"},
    {"gresused", "gresused", "GRES_USED"},
    {"allocmem", "allocmem", "ALLOCMEM"},
    {"t", "state", "STATE"},
    {"E", "reasonlong", "REASON"},
};

const FieldName* Find(const std::string& key) {
  for (const FieldName& f : kFields)
    if (key == f.key) return &f;
  return nullptr;
}

bool IsAggregate(const std::string& k) {
  return k == "N" || k == "n" || k == "o" || k == "D" || k == "A" || k == "F" || k == "C";
}

std::string Hosts(const SinfoRow& row, int what) {
  std::vector<std::string> names;
  for (const NodeInfo* n : row.nodes)
    names.push_back(what == 2 && !n->addr().empty() ? n->addr() : n->name());
  return names.empty() ? "" : CompressHostlistSorted(std::move(names));
}

std::string Counts(const SinfoRow& row, bool four) {
  int64_t a = 0, i = 0, o = 0;
  for (const NodeInfo* n : row.nodes) {
    if (NodeUnavailable(*n)) {
      ++o;
    } else if (n->state() == NODE_IDLE) {
      ++i;
    } else {
      ++a;
    }
  }
  std::string s = std::to_string(a) + "/" + std::to_string(i);
  if (four) s += "/" + std::to_string(o) + "/" + std::to_string(a + i + o);
  return s;
}

std::string CpuCounts(const SinfoRow& row) {
  int64_t a = 0, i = 0, o = 0;
  for (const NodeInfo* n : row.nodes) {
    a += n->alloc_cpus();
    (NodeUnavailable(*n) ? o : i) += std::max(0, n->cpus() - n->alloc_cpus());
  }
  return std::to_string(a) + "/" + std::to_string(i) + "/" + std::to_string(o) + "/" +
         std::to_string(a + i + o);
}

std::string Features(const NodeInfo& n) {
  std::string s;
  for (const std::string& f : n.features()) s += (s.empty() ? "" : ",") + f;
  return s.empty() ? "(null)" : s;
}

std::string PartValue(char c, const PartitionInfo& p) {
  switch (c) {
    case 'a':
      return p.up() ? "up" : "down";
    case 'g':
      return "all";
    case 'h':
      return "NO";
    case 'l':
      return FormatSinfoLimit(p.max_time_min());
    case 'L':
      return p.default_time_min() > 0 ? FormatSinfoLimit(p.default_time_min()) : "n/a";
    case 'p':
      return "1";
    case 'P':
      return p.name() + (p.is_default() ? "*" : "");
    case 'r':
      return "no";
    case 'R':
      return p.name();
    case 's':
      return "1-" + (p.max_nodes() > 0 ? std::to_string(p.max_nodes()) : std::string("infinite"));
  }
  return "";
}

std::string NodeValue(const std::string& k, const NodeInfo& n, const UserNameFn& user) {
  if (k == "gresused") return NodeGresUsed(n);
  if (k == "allocmem") return std::to_string(n.alloc_mem_mb());
  char buf[32];
  switch (k[0]) {
    case 'b':
    case 'f':
      return Features(n);
    case 'c':
      return std::to_string(n.cpus());
    case 'd':
      return "0";
    case 'e':
      return n.has_free_mem_mb() ? std::to_string(n.free_mem_mb()) : "N/A";
    case 'E':
      return n.reason().empty() ? "none" : n.reason();
    case 'G':
      return NodeGres(n);
    case 'H':
      return n.reason_time() > 0 ? FormatTimestamp(n.reason_time()) : "Unknown";
    case 'm':
      return std::to_string(n.real_memory_mb());
    case 'O':
      if (!n.has_cpu_load()) return "N/A";
      std::snprintf(buf, sizeof(buf), "%.2f", n.cpu_load());
      return buf;
    case 't':
      return NodeStateCompact(n);
    case 'T':
      return NodeStateLong(n);
    case 'u':
      return n.reason().empty() ? "Unknown" : user(n.reason_uid());
    case 'U':
      return n.reason().empty() ? "Unknown"
                                : user(n.reason_uid()) + "(" + std::to_string(n.reason_uid()) + ")";
    case 'w':
      return "1";
    case 'X':
      return std::to_string(n.sockets());
    case 'Y':
      return std::to_string(n.cores_per_socket());
    case 'Z':
      return std::to_string(n.threads_per_core());
    case 'z':
      return std::to_string(n.sockets()) + ":" + std::to_string(n.cores_per_socket()) + ":" +
             std::to_string(n.threads_per_core());
  }
  return "";
}

std::string RowKey(const std::vector<FormatField>& fields, const SinfoRow& row,
                   const UserNameFn& user) {
  std::string key;
  for (const FormatField& f : fields)
    if (!f.key.empty() && !IsAggregate(f.key)) key += SinfoValue(f.key, row, user) + '\x1f';
  return key;
}

}  // namespace

Status ValidateSinfoFields(std::vector<FormatField>* fields) {
  for (FormatField& f : *fields) {
    if (f.key.empty()) continue;
    if (f.key.size() > 1) {
      const FieldName* byname = nullptr;
      for (const FieldName& n : kFields)
        if (!byname && f.key == n.name) byname = &n;
      if (!byname) return InvalidArgument("Invalid node format specification: " + f.key);
      f.key = byname->key;
    } else if (!Find(f.key)) {
      return InvalidArgument("Invalid node format specification: " + f.key);
    }
  }
  return Status::Ok();
}

std::string SinfoHeader(const std::string& key) {
  const FieldName* f = Find(key);
  return f ? f->header : key;
}

std::string SinfoValue(const std::string& key, const SinfoRow& row, const UserNameFn& user) {
  if (key == "N" || key == "n") return Hosts(row, 1);
  if (key == "o") return Hosts(row, 2);
  if (key == "D") return std::to_string(row.nodes.size());
  if (key == "A") return Counts(row, false);
  if (key == "F") return Counts(row, true);
  if (key == "C") return CpuCounts(row);
  if (key.size() == 1 && std::string("aghlLpPrRs").find(key[0]) != std::string::npos)
    return row.part ? PartValue(key[0], *row.part) : "";
  return row.nodes.empty() ? "" : NodeValue(key, *row.nodes[0], user);
}

std::vector<SinfoRow> BuildSinfoRows(const std::vector<FormatField>& fields,
                                     const std::vector<const PartitionInfo*>& parts,
                                     const std::vector<const NodeInfo*>& nodes, bool node_mode,
                                     const UserNameFn& user) {
  std::map<std::string, const NodeInfo*> by_name;
  for (const NodeInfo* n : nodes) by_name[n->name()] = n;
  std::vector<std::pair<size_t, SinfoRow>> rows;  // (partition index, row)
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    std::vector<SinfoRow> groups;
    std::vector<std::string> keys;
    for (const std::string& name : parts[pi]->nodes()) {
      auto it = by_name.find(name);
      if (it == by_name.end()) continue;
      SinfoRow single{parts[pi], {it->second}};
      std::string key = node_mode ? name : RowKey(fields, single, user);
      auto k = std::find(keys.begin(), keys.end(), key);
      if (k == keys.end()) {
        keys.push_back(key);
        groups.push_back(single);
      } else {
        groups[k - keys.begin()].nodes.push_back(it->second);
      }
    }
    for (SinfoRow& g : groups) rows.emplace_back(pi, std::move(g));
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    if (node_mode) {
      const std::string &na = a.second.nodes[0]->name(), &nb = b.second.nodes[0]->name();
      if (na != nb) return na < nb;
      return a.first < b.first;
    }
    if (a.first != b.first) return a.first < b.first;
    int ra = NodeStateRank(*a.second.nodes[0]), rb = NodeStateRank(*b.second.nodes[0]);
    if (ra != rb) return ra < rb;
    return a.second.nodes[0]->name() < b.second.nodes[0]->name();
  });
  std::vector<SinfoRow> out;
  for (auto& r : rows) out.push_back(std::move(r.second));
  return out;
}

std::string SinfoFormat(std::vector<FormatField> fields, const std::vector<SinfoRow>& rows,
                        bool header, const UserNameFn& user) {
  for (FormatField& f : fields) {
    if (!f.auto_width) continue;
    size_t w = 9;
    for (const SinfoRow& r : rows) w = std::max(w, SinfoValue(f.key, r, user).size());
    f.width = static_cast<int>(w);
  }
  std::string out;
  if (header)
    out += RenderLine(fields, [](const FormatField& f) { return SinfoHeader(f.key); }) + "\n";
  for (const SinfoRow& r : rows)
    out +=
        RenderLine(fields, [&](const FormatField& f) { return SinfoValue(f.key, r, user); }) + "\n";
  return out;
}

}  // namespace sluice
