#include "sched/usage_ledger.h"

#include <algorithm>

#include "sched/priority.h"

namespace sluice::sched {

void UsageLedger::Accrue(int64_t now, int64_t half_life_s,
                         const std::vector<UsageCharge>& charges) {
  if (time_ == 0 || now < time_) {
    time_ = now;
    return;
  }
  const double decay = DecayFactor(now - time_, half_life_s);
  for (auto& [key, u] : rows_) {
    u.billing *= decay;
    u.cpu_min *= decay;
    u.gpu_min *= decay;
  }
  for (const UsageCharge& c : charges) {
    const int64_t from = std::max(c.start, time_);
    const int64_t to = c.end > 0 ? std::min(c.end, now) : now;
    if (c.start <= 0 || to <= from) continue;
    const double secs = static_cast<double>(to - from) * c.factor;
    AssocUsage& u = rows_[c.key];
    u.billing += c.billing_per_s * secs;
    u.cpu_min += static_cast<double>(c.cpus) * secs / 60.0;
    u.gpu_min += static_cast<double>(c.gpus) * secs / 60.0;
  }
  time_ = now;
}

void UsageLedger::Restore(int64_t time, std::map<UsageKey, AssocUsage> rows) {
  time_ = time;
  rows_ = std::move(rows);
}

double UsageLedger::Billing(const UsageKey& key) const {
  const AssocUsage* u = Find(key);
  return u ? u->billing : 0.0;
}

const AssocUsage* UsageLedger::Find(const UsageKey& key) const {
  auto it = rows_.find(key);
  return it == rows_.end() ? nullptr : &it->second;
}

}  // namespace sluice::sched
