// JobFilter: a request's static node filters (partition, --exclude, --constraint) and
// its --nodelist, compiled once against a snapshot into node indices. Pure.
#pragma once

#include <string>
#include <vector>

#include "sched/types.h"

namespace sluice::sched {

class JobFilter {
 public:
  // Admits every node; no required nodes.
  JobFilter() = default;

  // Compiles `job`'s filters against `snapshot`. Not ok() when the constraint does not
  // parse or a --nodelist node is unknown or filtered out (the job can never run).
  static JobFilter Compile(const ClusterSnapshot& snapshot, const JobRequest& job);

  bool ok() const { return ok_; }
  bool Admits(int node) const { return admit_.empty() || admit_[node] != 0; }
  // --nodelist nodes, deduplicated, in request order.
  const std::vector<int>& required() const { return required_; }
  bool IsRequired(int node) const;

 private:
  bool ok_ = true;
  std::vector<char> admit_;  // empty = all
  std::vector<int> required_;
};

}  // namespace sluice::sched
