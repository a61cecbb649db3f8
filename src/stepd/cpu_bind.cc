#include "stepd/cpu_bind.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace sluice {
namespace {

std::vector<std::string> Parts(const std::string& spec) {
  std::vector<std::string> out;
  size_t start = 0;
  while (!spec.empty() && start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string part =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.rfind("map_cpu:", 0) == 0) {
      out.push_back(spec.substr(start));  // the list runs to the end
      break;
    }
    out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

CpuBindPlan PlanCpuBind(const StepLaunch& l, int local_id) {
  CpuBindPlan plan;
  std::string mode;
  for (const std::string& p : Parts(l.cpu_bind())) {
    if (p == "v" || p == "verbose")
      plan.verbose = true;
    else if (p == "q" || p == "quiet")
      plan.verbose = false;
    else
      mode = p;
  }
  if (mode.empty() || mode == "none" || mode == "no") return plan;
  if (mode.rfind("map_cpu:", 0) == 0) {
    std::string list = mode.substr(8);
    std::vector<int> map;
    for (size_t p = 0; p <= list.size();) {
      size_t c = list.find(',', p);
      map.push_back(
          std::atoi(list.substr(p, c == std::string::npos ? std::string::npos : c - p).c_str()));
      if (c == std::string::npos) break;
      p = c + 1;
    }
    plan.bind = !map.empty();
    if (plan.bind) plan.cpus.push_back(map[local_id % map.size()]);
    return plan;
  }
  plan.cpus = TaskCpuSlice(l, local_id);
  plan.bind = !plan.cpus.empty();
  return plan;
}

std::vector<int> TaskCpuSlice(const StepLaunch& l, int local_id) {
  const auto& ids =
      l.step_resources() && l.step_cpu_ids_size() > 0 ? l.step_cpu_ids() : l.local().cpu_ids();
  std::vector<int> out;
  if (ids.empty()) return out;
  int per = std::max(1, l.cpus_per_task());
  for (int k = 0; k < per; ++k) out.push_back(ids[(local_id * per + k) % ids.size()]);
  return out;
}

std::string ApplyCpuBind(const CpuBindPlan& plan) {
  if (!plan.bind || plan.cpus.empty()) return "";
  long online = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  for (int fold = 0; fold < 2; ++fold) {
    cpu_set_t set;
    CPU_ZERO(&set);
    unsigned long long mask = 0;
    for (int c : plan.cpus) {
      int cpu = fold ? static_cast<int>(c % online) : c;
      if (cpu < 0 || cpu >= CPU_SETSIZE) continue;
      CPU_SET(cpu, &set);
      if (cpu < 64) mask |= 1ULL << cpu;
    }
    if (::sched_setaffinity(0, sizeof set, &set) == 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llX", mask);
      return buf;
    }
  }
  return "";
}

std::string CpuBindVerboseLine(const std::string& node, int rank, int local_id, pid_t pid,
                               const std::string& mask) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "cpu-bind=MASK - %s, task %2d %2d [%d]: mask %s set\n",
                node.c_str(), rank, local_id, static_cast<int>(pid), mask.c_str());
  return buf;
}

}  // namespace sluice
