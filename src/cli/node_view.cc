#include "cli/node_view.h"

#include "common/slurm_format.h"

namespace sluice {
namespace {

std::string Star(const NodeInfo& n) { return n.responding() ? "" : "*"; }

std::string GpuType(const NodeInfo& n) { return n.gpus().empty() ? "" : n.gpus(0).type(); }

}  // namespace

std::string NodeStateCompact(const NodeInfo& n) {
  std::string s;
  bool busy = n.state() == NODE_MIXED || n.state() == NODE_ALLOCATED;
  if (n.drain() && n.state() != NODE_DOWN) {
    s = busy ? "drng" : "drain";
  } else {
    switch (n.state()) {
      case NODE_IDLE:
        s = "idle";
        break;
      case NODE_MIXED:
        s = "mix";
        break;
      case NODE_ALLOCATED:
        s = "alloc";
        break;
      case NODE_DOWN:
        s = "down";
        break;
      default:
        s = "unk";
        break;
    }
  }
  return s + Star(n);
}

std::string NodeStateLong(const NodeInfo& n) {
  std::string s;
  bool busy = n.state() == NODE_MIXED || n.state() == NODE_ALLOCATED;
  if (n.drain() && n.state() != NODE_DOWN) {
    s = busy ? "draining" : "drained";
  } else {
    switch (n.state()) {
      case NODE_IDLE:
        s = "idle";
        break;
      case NODE_MIXED:
        s = "mixed";
        break;
      case NODE_ALLOCATED:
        s = "allocated";
        break;
      case NODE_DOWN:
        s = "down";
        break;
      default:
        s = "unknown";
        break;
    }
  }
  return s + Star(n);
}

std::string NodeStateScontrol(const NodeInfo& n) {
  std::string s;
  switch (n.state()) {
    case NODE_IDLE:
      s = "IDLE";
      break;
    case NODE_MIXED:
      s = "MIXED";
      break;
    case NODE_ALLOCATED:
      s = "ALLOCATED";
      break;
    case NODE_DOWN:
      s = "DOWN";
      break;
    default:
      s = "UNKNOWN";
      break;
  }
  s += Star(n);
  if (n.drain()) s += "+DRAIN";
  return s;
}

int NodeStateRank(const NodeInfo& n) {
  switch (n.state()) {
    case NODE_MIXED:
      return 0;
    case NODE_ALLOCATED:
      return 1;
    case NODE_IDLE:
      return 2;
    case NODE_DOWN:
      return 3;
    default:
      return 4;
  }
}

bool NodeUnavailable(const NodeInfo& n) {
  return n.drain() || n.state() == NODE_DOWN || n.state() == NODE_UNKNOWN ||
         n.state() == NODE_STATE_UNSPECIFIED;
}

std::string NodeGres(const NodeInfo& n) {
  if (n.gpus().empty()) return "(null)";
  std::string t = GpuType(n);
  return "gpu:" + (t.empty() ? "" : t + ":") + std::to_string(n.gpus_size());
}

std::string NodeGresUsed(const NodeInfo& n) {
  if (n.gpus().empty()) return "(null)";
  std::string t = GpuType(n);
  return "gpu:" + (t.empty() ? "" : t + ":") + std::to_string(n.alloc_gpus());
}

std::string NodeAllocTres(const NodeInfo& n) {
  std::string r;
  auto add = [&](const std::string& part) { r += (r.empty() ? "" : ",") + part; };
  if (n.alloc_cpus() > 0) add("cpu=" + std::to_string(n.alloc_cpus()));
  if (n.alloc_mem_mb() > 0) add("mem=" + FormatMemoryMb(n.alloc_mem_mb()));
  if (n.alloc_gpus() > 0) add("gres/gpu=" + std::to_string(n.alloc_gpus()));
  return r;
}

std::string NodeCfgTres(const NodeInfo& n) {
  std::string r = "cpu=" + std::to_string(n.cpus()) + ",mem=" + FormatMemoryMb(n.real_memory_mb()) +
                  ",billing=" + std::to_string(n.cpus());
  if (n.gpus_size() > 0) r += ",gres/gpu=" + std::to_string(n.gpus_size());
  return r;
}

}  // namespace sluice
