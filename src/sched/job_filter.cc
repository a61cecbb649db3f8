#include "sched/job_filter.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "sched/constraint.h"

namespace sluice::sched {

JobFilter JobFilter::Compile(const ClusterSnapshot& snapshot, const JobRequest& job) {
  JobFilter filter;
  auto features = FeatureExpr::Parse(job.constraint);
  if (!features.ok()) {
    filter.ok_ = false;
    return filter;
  }
  const FeatureExpr& expr = features.value();
  const bool trivial = job.allowed_nodes.empty() && job.excluded_nodes.empty() && expr.empty();
  if (!trivial) {
    std::unordered_set<std::string> allowed(job.allowed_nodes.begin(), job.allowed_nodes.end());
    std::unordered_set<std::string> excluded(job.excluded_nodes.begin(), job.excluded_nodes.end());
    filter.admit_.resize(snapshot.nodes.size());
    for (size_t i = 0; i < snapshot.nodes.size(); ++i) {
      const Node& node = snapshot.nodes[i];
      filter.admit_[i] = (allowed.empty() || allowed.count(node.name)) &&
                         !excluded.count(node.name) && expr.Matches(node.features);
    }
  }
  if (job.required_nodes.empty()) return filter;
  std::unordered_map<std::string, int> by_name;
  for (size_t i = 0; i < snapshot.nodes.size(); ++i)
    by_name.emplace(snapshot.nodes[i].name, static_cast<int>(i));
  for (const std::string& name : job.required_nodes) {
    auto it = by_name.find(name);
    if (it == by_name.end() || !filter.Admits(it->second)) {
      filter.ok_ = false;
      return filter;
    }
    if (!filter.IsRequired(it->second)) filter.required_.push_back(it->second);
  }
  return filter;
}

bool JobFilter::IsRequired(int node) const {
  return std::find(required_.begin(), required_.end(), node) != required_.end();
}

}  // namespace sluice::sched
