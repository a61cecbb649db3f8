// Backfill candidate orders: see backfill_order.h.
#include "sched/backfill_order.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace sluice::sched {

namespace {

constexpr int64_t kUnlimitedRuntime = int64_t{1} << 40;
constexpr double kTauS = 10.0;
constexpr double kAgingS = 3600.0;

struct Names {
  BackfillOrder order;
  const char* name;
};
constexpr Names kNames[] = {{BackfillOrder::kPriority, "priority"},
                            {BackfillOrder::kSjbf, "sjbf"},
                            {BackfillOrder::kWfp3, "wfp3"},
                            {BackfillOrder::kUnicep, "unicep"},
                            {BackfillOrder::kF1, "f1"},
                            {BackfillOrder::kSgtf, "sgtf"}};

double Cpus(const JobRequest& job) {
  return std::max(1.0, static_cast<double>(job.num_nodes) * job.cpus_per_node);
}

double Key(const JobRequest& job, const BackfillOrderConfig& config, int64_t now) {
  const double d = static_cast<double>(std::max<int64_t>(1, PlannedRuntime(job)));
  const double w = static_cast<double>(std::max<int64_t>(0, now - job.submit_time));
  const double n = Cpus(job);
  switch (config.order) {
    case BackfillOrder::kPriority:
      return 0;
    case BackfillOrder::kSjbf:
      return d;
    case BackfillOrder::kWfp3:
      return -std::pow(w / d, 3) * n;
    case BackfillOrder::kUnicep:
      return -w / (std::log2(std::max(2.0, n)) * d);
    case BackfillOrder::kF1: {
      const double s = std::max<double>(1.0, static_cast<double>(job.submit_time - config.origin));
      return std::log10(d) * n + 870.0 * std::log10(s);
    }
    case BackfillOrder::kSgtf: {
      const double gpus = static_cast<double>(job.num_nodes) * job.gpus_per_node;
      return (gpus > 0 ? gpus : n) * d / (1.0 + w / kAgingS);
    }
  }
  return 0;
}

}  // namespace

bool ParseBackfillOrder(std::string_view name, BackfillOrder* out) {
  for (const Names& n : kNames) {
    if (name == n.name) {
      *out = n.order;
      return true;
    }
  }
  return false;
}

const char* BackfillOrderName(BackfillOrder order) {
  for (const Names& n : kNames) {
    if (n.order == order) return n.name;
  }
  return "?";
}

int64_t PlannedRuntime(const JobRequest& job) {
  if (job.predicted_runtime_s > 0) {
    return job.time_limit_s > 0 ? std::min(job.predicted_runtime_s, job.time_limit_s)
                                : job.predicted_runtime_s;
  }
  return job.time_limit_s > 0 ? job.time_limit_s : kUnlimitedRuntime;
}

bool IsStarving(const JobRequest& job, const BackfillOrderConfig& config, int64_t now) {
  if (config.starvation_factor <= 0) return false;
  const double waited = static_cast<double>(std::max<int64_t>(0, now - job.submit_time));
  return waited >=
         config.starvation_factor * std::max(kTauS, static_cast<double>(PlannedRuntime(job)));
}

namespace {

// One job's place in an order: promoted (starving) jobs first, then by key, id, pending rank.
struct Entry {
  int tier;
  int64_t base;  // priority without its age (QueueOrder; 0 for backfill candidates)
  bool promoted;
  double key;
  int64_t id;
  size_t rank;  // place in the pending order
  size_t pos;
};

Entry EntryOf(const JobRequest& job, const BackfillOrderConfig& config, int64_t now, size_t rank,
              size_t pos) {
  const bool promoted = IsStarving(job, config, now);
  const double key = promoted ? static_cast<double>(rank) : Key(job, config, now);
  return {0, 0, promoted, key, job.job_id, rank, pos};
}

void SortEntries(std::vector<Entry>* entries) {
  std::sort(entries->begin(), entries->end(), [](const Entry& a, const Entry& b) {
    if (a.tier != b.tier) return a.tier > b.tier;
    if (a.base != b.base) return a.base > b.base;
    if (a.promoted != b.promoted) return a.promoted;
    return std::tie(a.key, a.id, a.rank) < std::tie(b.key, b.id, b.rank);
  });
}

}  // namespace

void SortBackfillCandidates(const std::vector<JobRequest>& pending,
                            const BackfillOrderConfig& config, int64_t now,
                            std::vector<size_t>* positions) {
  if (config.order == BackfillOrder::kPriority) return;  // promotion would only reorder
  std::vector<Entry> entries;
  entries.reserve(positions->size());
  for (size_t rank = 0; rank < positions->size(); ++rank) {
    const size_t pos = (*positions)[rank];
    entries.push_back(EntryOf(pending[pos], config, now, rank, pos));
  }
  SortEntries(&entries);
  for (size_t k = 0; k < entries.size(); ++k) (*positions)[k] = entries[k].pos;
}

std::vector<size_t> QueueOrder(const std::vector<JobRequest>& pending,
                               const BackfillOrderConfig& config, int64_t now) {
  std::vector<size_t> order(pending.size());
  for (size_t pos = 0; pos < order.size(); ++pos) order[pos] = pos;
  if (config.order == BackfillOrder::kPriority) return order;
  std::vector<Entry> entries;
  entries.reserve(pending.size());
  for (size_t pos = 0; pos < pending.size(); ++pos) {
    const JobRequest& job = pending[pos];
    Entry e = EntryOf(job, config, now, pos, pos);
    e.tier = job.priority_tier;
    e.base = job.priority - job.priority_age;
    entries.push_back(e);
  }
  SortEntries(&entries);
  for (size_t k = 0; k < entries.size(); ++k) order[k] = entries[k].pos;
  return order;
}

}  // namespace sluice::sched
