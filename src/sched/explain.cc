#include "sched/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sched/array_throttle.h"
#include "sched/assoc_limits.h"
#include "sched/constraint.h"
#include "sched/placement.h"
#include "sched/reservations.h"

namespace sluice::sched {
namespace {

std::string Plural(int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string In(int64_t seconds) {
  if (seconds < 60) return "in under a minute";
  if (seconds < 3600) return fmt::format("in {} min", seconds / 60);
  if (seconds < 86400) return fmt::format("in {} h {} min", seconds / 3600, seconds % 3600 / 60);
  return fmt::format("in {}", Plural(seconds / 86400, "day", "days"));
}

int GpusOfType(const Node& n, const std::string& type, bool free_only) {
  int k = 0;
  for (const Gpu& g : n.gpus) k += (type.empty() || g.type == type) && !(free_only && g.used);
  return k;
}

int FreeCpus(const Node& n) {
  return n.cpus - static_cast<int>(std::count(n.cpu_used.begin(), n.cpu_used.end(), true));
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The nodes the job may ever use, whatever is running: partition, --exclude, --constraint.
std::vector<const Node*> Candidates(const ClusterSnapshot& snap, const JobRequest& job) {
  Expected<FeatureExpr> expr = FeatureExpr::Parse(job.constraint);
  std::vector<const Node*> out;
  for (const Node& n : snap.nodes) {
    if (!job.allowed_nodes.empty() && !Contains(job.allowed_nodes, n.name)) continue;
    if (Contains(job.excluded_nodes, n.name)) continue;
    if (expr.ok() && !expr->Matches(n.features)) continue;
    out.push_back(&n);
  }
  return out;
}

std::string GpuWords(const JobRequest& job) {
  return job.gpu_type.empty() ? "GPUs" : job.gpu_type + " GPUs";
}

std::string Never(const ClusterSnapshot& snap, const ExplainInput& in) {
  const JobRequest& job = in.job;
  const std::vector<const Node*> nodes = Candidates(snap, job);
  const std::string where = "partition " + in.partition;
  if (nodes.empty()) {
    if (!job.constraint.empty())
      return fmt::format("no node of {} has the features {}", where, job.constraint);
    return fmt::format("no node of {} may be used", where);
  }
  int max_gpus = 0, max_cpus = 0, fitting = 0;
  int64_t max_mem = 0;
  for (const Node* n : nodes) {
    const int g = GpusOfType(*n, job.gpu_type, false);
    max_gpus = std::max(max_gpus, g);
    max_cpus = std::max(max_cpus, n->cpus);
    max_mem = std::max(max_mem, n->mem_mb);
    fitting +=
        g >= job.gpus_per_node && n->cpus >= job.cpus_per_node && n->mem_mb >= job.mem_per_node_mb;
  }
  if (max_gpus < job.gpus_per_node) {
    return fmt::format("asks {} {} per node, the largest node in {} has {}", job.gpus_per_node,
                       GpuWords(job), where, max_gpus);
  }
  if (max_cpus < job.cpus_per_node) {
    return fmt::format("asks {} CPUs per node, the largest node in {} has {}", job.cpus_per_node,
                       where, max_cpus);
  }
  if (max_mem < job.mem_per_node_mb) {
    return fmt::format("asks {} MB of memory per node, the largest node in {} has {} MB",
                       job.mem_per_node_mb, where, max_mem);
  }
  if (fitting < job.num_nodes) {
    return fmt::format("asks {}, {} has {} that can hold its share",
                       Plural(job.num_nodes, "node", "nodes"), where, fitting);
  }
  for (const std::string& r : job.required_nodes) {
    if (std::none_of(nodes.begin(), nodes.end(), [&](const Node* n) { return n->name == r; }))
      return fmt::format("asks for node {}, which {} may not use", r, where);
  }
  return in.reason;
}

std::string Needs(const JobRequest& job) {
  std::string each;
  if (job.gpus_per_node > 0) {
    each = fmt::format("{} free {}", job.gpus_per_node, GpuWords(job));
  } else {
    each = fmt::format("{} free CPUs", job.cpus_per_node);
  }
  std::string out = job.num_nodes == 1
                        ? "needs 1 node with " + each
                        : fmt::format("needs {} nodes with {} each", job.num_nodes, each);
  if (job.gpus_per_node > 0 && job.num_nodes > 1)
    out += fmt::format(" ({} GPUs)", static_cast<int64_t>(job.gpus_per_node) * job.num_nodes);
  if (job.exclusive) out += ", whole nodes";
  if (job.max_switches > 0) out += " under " + Plural(job.max_switches, "switch", "switches");
  return out;
}

// "12 GPUs are idle now and 1 node has 8 free" (over the nodes it may use).
std::string IdleNow(const ClusterSnapshot& snap, const JobRequest& job) {
  int idle_gpus = 0, idle_cpus = 0, fit = 0;
  for (const Node* n : Candidates(snap, job)) {
    if (!n->available) continue;
    const int g = GpusOfType(*n, job.gpu_type, true);
    const int c = FreeCpus(*n);
    idle_gpus += g;
    idle_cpus += c;
    fit += !n->exclusive_held && (!job.exclusive || n->running_jobs == 0) &&
           g >= job.gpus_per_node && c >= job.cpus_per_node &&
           n->mem_mb - n->mem_used_mb >= job.mem_per_node_mb;
  }
  const std::string idle =
      job.gpus_per_node > 0
          ? fmt::format("{} {} idle now", idle_gpus, idle_gpus == 1 ? "GPU is" : "GPUs are")
          : fmt::format("{} {} idle now", idle_cpus, idle_cpus == 1 ? "CPU is" : "CPUs are");
  return fmt::format("{} and {} room for it", idle,
                     fit == 1 ? "1 node has" : fmt::format("{} nodes have", fit));
}

// "; planned start T (in 12 min) when job 812 ends" or why no start is planned.
std::string Planned(const ClusterSnapshot& snap, const ExplainInput& in, int64_t now,
                    const std::function<std::string(int64_t)>& format_time) {
  if (in.planned_start <= 0) {
    const std::vector<const Node*> nodes = Candidates(snap, in.job);
    std::set<std::string> names;
    for (const Node* n : nodes) names.insert(n->name);
    for (const RunningJob& r : snap.running) {
      if (r.end_time > 0) continue;
      for (const NodeShare& s : r.alloc) {
        if (names.count(s.node))
          return "; no start planned: running jobs without a time limit hold nodes it needs";
      }
    }
    return "; no start planned within the backfill window";
  }
  std::string out = fmt::format("; planned start {} ({})", format_time(in.planned_start),
                                In(std::max<int64_t>(0, in.planned_start - now)));
  // The running jobs on the planned nodes whose end frees them last before the start.
  int64_t last_end = 0;
  std::vector<int64_t> ids;
  for (const RunningJob& r : snap.running) {
    if (r.end_time <= 0 || r.end_time > in.planned_start) continue;
    const bool on_planned = std::any_of(r.alloc.begin(), r.alloc.end(), [&](const NodeShare& s) {
      return Contains(in.planned_nodes, s.node);
    });
    if (!on_planned) continue;
    if (r.end_time > last_end) {
      last_end = r.end_time;
      ids.clear();
    }
    if (r.end_time == last_end) ids.push_back(r.job_id);
  }
  if (ids.empty()) return out;
  std::sort(ids.begin(), ids.end());
  if (in.names_job && !std::all_of(ids.begin(), ids.end(), in.names_job)) {
    return out + (ids.size() == 1 ? std::string(" when a running job ends")
                                  : fmt::format(" when {} running jobs end", ids.size()));
  }
  if (ids.size() == 1) return out + fmt::format(" when job {} ends", ids[0]);
  return out + fmt::format(" when jobs {} end", fmt::join(ids, ", "));
}

std::string Behind(const ExplainInput& in) {
  if (in.ahead_count == 0) return "";
  std::vector<int64_t> prios;
  for (const auto& a : in.ahead) prios.push_back(a.priority);
  std::string more = in.ahead_count > static_cast<int64_t>(prios.size()) ? ", ..." : "";
  const std::string jobs =
      in.queue_order.empty() ? Plural(in.ahead_count, "higher-priority job", "higher-priority jobs")
                             : Plural(in.ahead_count, "job", "jobs") + " that queue order " +
                                   in.queue_order + " takes first";
  return fmt::format("behind {} in partition {} (priority {} vs {}{})", jobs, in.partition,
                     in.job.priority, fmt::join(prios, ", "), more);
}

std::string Limit(const ClusterSnapshot& snap, const ExplainInput& in) {
  const LimitsTracker tracker(snap.limits);
  const LimitBlock b = tracker.Block(in.job);
  if (b.reason.empty() || b.scope < 0) return "";
  const std::string& who = snap.limits.scopes[b.scope].label;
  if (b.limit.rfind("MaxWall=", 0) == 0) {
    return fmt::format("{} allows {} minutes per job, this job asks {}", who, b.limit,
                       b.asks > 0 ? std::to_string(b.asks) : "no limit");
  }
  if (b.limit.rfind("MaxTRESPerJob=", 0) == 0)
    return fmt::format("{} allows {} per job, this job asks {}", who, b.limit, b.asks);
  return fmt::format("{} at its {} limit ({} in use, this job asks {})", who, b.limit, b.in_use,
                     b.asks);
}

std::string Reservation(const ClusterSnapshot& snap, const ExplainInput& in,
                        const std::function<std::string(int64_t)>& format_time) {
  for (const ReservationWindow& w : snap.reservations) {
    if (in.reason == kReasonReservation && w.name == in.job.reservation) {
      return fmt::format("waiting for its reservation {}, which starts {}", w.name,
                         format_time(w.start));
    }
    if (in.reason == kReasonMaint && w.maint &&
        std::any_of(w.nodes.begin(), w.nodes.end(),
                    [&](const std::string& n) { return Contains(in.job.allowed_nodes, n); })) {
      return fmt::format("nodes it needs are reserved for maintenance by {} until {}", w.name,
                         format_time(w.end));
    }
  }
  return "";
}

}  // namespace

std::string Explain(const ClusterSnapshot& snap, const ExplainInput& in, int64_t now,
                    const std::function<std::string(int64_t)>& format_time) {
  const std::string& r = in.reason;
  const std::string deps = fmt::format("{}", fmt::join(in.dependencies, "; "));
  if (r == "JobHeldUser")
    return fmt::format("held by its user: `scontrol release {}` lets it run", in.job.job_id);
  if (r == "JobHeldAdmin") return "held by an administrator";
  if (r == "Dependency") return "waiting for its dependency: " + deps;
  if (r == "DependencyNeverSatisfied") return "can never run: its dependency failed: " + deps;
  if (r == "BeginTime") {
    return fmt::format("not eligible before {} (--begin, {})", format_time(in.begin_time),
                       In(std::max<int64_t>(0, in.begin_time - now)));
  }
  if (r == "PartitionDown") return fmt::format("partition {} is DOWN", in.partition);
  if (r == kReasonArrayTaskLimit) return "its array is running as many tasks as its %N allows";
  if (r == kReasonNodeConfig || r == kReasonBadConstraints)
    return "can never run: " + Never(snap, in);
  if (r.rfind("Assoc", 0) == 0 || r.rfind("QOS", 0) == 0) {
    if (std::string limit = Limit(snap, in); !limit.empty()) return limit;
  }
  if (r == kReasonReservation || r == kReasonMaint) {
    if (std::string resv = Reservation(snap, in, format_time); !resv.empty())
      return resv + Planned(snap, in, now, format_time);
  }
  if (r == kReasonPriority) {
    if (std::string behind = Behind(in); !behind.empty())
      return behind + Planned(snap, in, now, format_time);
  }
  if (r == kReasonResources || r == kReasonPriority || r == "None") {
    return Needs(in.job) + "; " + IdleNow(snap, in.job) + Planned(snap, in, now, format_time);
  }
  return fmt::format("pending, reason {}", r);
}

}  // namespace sluice::sched
