// Multifactor job priority and Fair Tree fair-share, as Slurm's priority/multifactor
// defines them. Pure and deterministic: time comes in as `now`; no I/O, no clock.
//
// priority = WeightAge*age + WeightFairshare*fairshare + WeightJobSize*job_size
//          + WeightPartition*partition + WeightQOS*qos - nice
// Every factor is in [0, 1]; each weighted term is rounded to an integer (the values
// sprio prints), the priority is their sum minus nice, and at least 1 (0 means held).
//   age       = min(now - eligible, MaxAge) / MaxAge (0 when MaxAge is 0)
//   job_size  = (nodes/cluster_nodes + cpus/cluster_cpus) / 2; with FavorSmall,
//               ((N-nodes)/N + (C-cpus)/C) / 2
//   partition = PriorityJobFactor / highest PriorityJobFactor of all partitions
//   qos       = QOS priority / highest QOS priority (0 while there are no QOSes)
//
// Fair Tree (ComputeFairTree): the association tree (accounts and user leaves, each
// with raw shares and, for users, decayed usage). At every level, the Level Fairshare
// of an association is LF = S / U, S = shares / sum of siblings' shares, U = usage /
// parent's usage (an association with usage 0 under a parent with usage > 0, or under
// a parent without usage, has LF = +inf; shares 0 gives LF 0). Users are ranked by a
// depth-first walk from root, visiting siblings in descending LF (ties: users before
// accounts, then by name); users with equal LF next to each other share a rank.
// With N users, the first visited gets rank N and fairshare = rank / N; users with 0
// shares get fairshare 0. Simplification: Slurm merges the children of tied accounts;
// here tied accounts are visited in name order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::sched {

struct PriorityWeights {
  int64_t age = 0;
  int64_t fairshare = 0;
  int64_t job_size = 0;
  int64_t partition = 0;
  int64_t qos = 0;
  int64_t max_age_s = 7 * 86400;
  bool favor_small = false;
};

struct PriorityInput {
  int64_t eligible_time = 0;  // age counts from here
  int num_nodes = 1;
  int64_t num_cpus = 1;
  double fairshare = 0;  // from ComputeFairTree
  int64_t partition_job_factor = 1;
  int64_t max_partition_job_factor = 1;
  int64_t qos_priority = 0;
  int64_t max_qos_priority = 0;
  int64_t nice = 0;
};

struct ClusterTotals {
  int nodes = 0;
  int64_t cpus = 0;
};

struct PriorityFactors {
  double age = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;  // [0, 1]
  int64_t w_age = 0, w_fairshare = 0, w_job_size = 0, w_partition = 0, w_qos = 0;
  int64_t nice = 0;
  int64_t priority = 1;
};

double AgeFactor(int64_t age_s, int64_t max_age_s);
double JobSizeFactor(int nodes, int64_t cpus, const ClusterTotals& totals, bool favor_small);
PriorityFactors ComputePriority(const PriorityWeights& w, const PriorityInput& in,
                                const ClusterTotals& totals, int64_t now);

// Usage decay: usage * 2^(-elapsed/half_life); half_life <= 0 means no decay.
double DecayFactor(int64_t elapsed_s, int64_t half_life_s);

// One association. Accounts have an empty `user`; `parent` is the parent account
// ("" only for root). Users carry usage; an account's usage is the sum of its tree.
struct Assoc {
  std::string account;
  std::string user;
  std::string parent;
  int64_t shares = 1;
  double usage = 0;
};

struct ShareRow {
  std::string account;
  std::string user;  // empty for accounts
  int depth = 0;     // root 0
  int64_t raw_shares = 0;
  double norm_shares = 0;  // product of level shares down from root (root: 0)
  double raw_usage = 0;
  double effective_usage = 0;  // usage / parent's usage (root: 1)
  double level_fs = 0;         // S / U (+inf when U is 0)
  double fairshare = -1;       // users: the Fair Tree factor; accounts: -1
};

// Rows in tree order (root first; each account's users by name, then its sub-accounts
// by name). The root account is implicit (an Assoc for it is allowed and ignored).
// Errors: unknown parent account, duplicate association, user under unknown account.
Expected<std::vector<ShareRow>> ComputeFairTree(const std::vector<Assoc>& assocs);

}  // namespace sluice::sched
