// FairShare: priority and fair-share for the controller. Owns the usage ledger (TRES
// billing per association, decayed by PriorityDecayHalfLife, times the QOS UsageFactor:
// sched/usage_ledger.h) and the multifactor factors of each pending job (for sprio). Reads
// the configuration, the association database (the AssocDb's accounts and user
// associations, plus an implicit association under "root", or under the requested
// account, for every user seen without one) and the jobs it is handed; computes with
// sched/pending_order.h, which the simulator runs too. Persisting the ledger is the
// controller's (assoc_ops.cc). Owner-thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "client.pb.h"
#include "common/config.h"
#include "ctld/components/assoc_db.h"
#include "ctld/components/job_table.h"
#include "sched/pending_order.h"
#include "sched/usage_ledger.h"

namespace sluice::ctld {

class FairShare {
 public:
  using QosOf = std::function<std::string(const JobInfo&)>;  // the QOS a job runs under
  // `config` and `assocs` are the controller's (they outlive this and may change).
  FairShare(const Config* config, const AssocDb* assocs, QosOf qos_of)
      : config_(config), assocs_(assocs), qos_of_(std::move(qos_of)) {}

  // The association a job charges: its account when that exists, else the user's
  // default account, else "root".
  sched::UsageKey AssocOf(const JobInfo& job) const;
  // Decays the ledger to `now` and charges every started job's billing since the last
  // time; returns the charges (the dashboard's GPU-hours take them too).
  std::vector<sched::UsageCharge> Accrue(const JobTable& jobs, int64_t now);
  // PriorityType=priority/multifactor: the pending jobs' priorities, set on the jobs and
  // their scheduler requests (advisory: recomputed every pass, not journaled).
  void Prioritize(JobTable* jobs, int64_t now);
  // sprio and sshare.
  GetPrioritiesReply Priorities(const GetPrioritiesRequest& req, const JobTable& jobs) const;
  Expected<GetSharesReply> Shares(const JobTable& jobs) const;

  sched::UsageLedger& ledger() { return usage_; }
  const sched::UsageLedger& ledger() const { return usage_; }

 private:
  std::vector<sched::Assoc> Associations(const JobTable& jobs) const;

  const Config* config_;
  const AssocDb* assocs_;
  QosOf qos_of_;
  sched::UsageLedger usage_;
  std::map<int64_t, sched::PriorityFactors> factors_;  // pending job -> last factors
};

}  // namespace sluice::ctld
