// Multifactor priority math (see priority.h); the Fair Tree is in fair_tree.cc.
#include "sched/priority.h"

#include <algorithm>
#include <cmath>

namespace sluice::sched {
namespace {

double Clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

double Ratio(double a, double b) { return b > 0 ? Clamp01(a / b) : 0.0; }

int64_t Weighted(int64_t weight, double factor) {
  return std::llround(static_cast<double>(weight) * factor);
}

}  // namespace

double AgeFactor(int64_t age_s, int64_t max_age_s) {
  if (max_age_s <= 0 || age_s <= 0) return 0.0;
  return Ratio(static_cast<double>(std::min(age_s, max_age_s)), static_cast<double>(max_age_s));
}

double JobSizeFactor(int nodes, int64_t cpus, const ClusterTotals& totals, bool favor_small) {
  double n = Ratio(nodes, totals.nodes);
  double c = Ratio(static_cast<double>(cpus), static_cast<double>(totals.cpus));
  if (favor_small) {
    n = totals.nodes > 0 ? 1.0 - n : 0.0;
    c = totals.cpus > 0 ? 1.0 - c : 0.0;
  }
  return Clamp01((n + c) / 2.0);
}

PriorityFactors ComputePriority(const PriorityWeights& w, const PriorityInput& in,
                                const ClusterTotals& totals, int64_t now) {
  PriorityFactors f;
  f.age = AgeFactor(now - in.eligible_time, w.max_age_s);
  f.fairshare = Clamp01(in.fairshare);
  f.job_size = JobSizeFactor(in.num_nodes, in.num_cpus, totals, w.favor_small);
  f.partition = Ratio(static_cast<double>(in.partition_job_factor),
                      static_cast<double>(in.max_partition_job_factor));
  f.qos = Ratio(static_cast<double>(in.qos_priority), static_cast<double>(in.max_qos_priority));
  f.w_age = Weighted(w.age, f.age);
  f.w_fairshare = Weighted(w.fairshare, f.fairshare);
  f.w_job_size = Weighted(w.job_size, f.job_size);
  f.w_partition = Weighted(w.partition, f.partition);
  f.w_qos = Weighted(w.qos, f.qos);
  f.nice = in.nice;
  int64_t sum = f.w_age + f.w_fairshare + f.w_job_size + f.w_partition + f.w_qos - in.nice;
  f.priority = std::max<int64_t>(1, sum);
  return f;
}

double DecayFactor(int64_t elapsed_s, int64_t half_life_s) {
  if (half_life_s <= 0 || elapsed_s <= 0) return 1.0;
  return std::exp2(-static_cast<double>(elapsed_s) / static_cast<double>(half_life_s));
}

}  // namespace sluice::sched
