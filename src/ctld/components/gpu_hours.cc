#include "ctld/components/gpu_hours.h"

#include <algorithm>

namespace sluice::ctld {

void GpuHoursWindow::Charge(int64_t now, const std::vector<sched::UsageCharge>& charges) {
  const int64_t since = time_ < 0 || time_ > now ? now - kWindowS : time_;
  for (const sched::UsageCharge& c : charges) {
    if (c.gpus <= 0) continue;
    const int64_t from = std::max(c.start, since);
    const int64_t to = c.end > 0 ? std::min(c.end, now) : now;
    if (to > from) Add(c.key.first, from, to, c.gpus);
  }
  time_ = now;
  while (!buckets_.empty() && buckets_.front().start + kBucketS <= now - kWindowS)
    buckets_.pop_front();
}

void GpuHoursWindow::Add(const std::string& account, int64_t from, int64_t to, int64_t gpus) {
  for (int64_t t = from; t < to;) {
    Bucket& b = BucketAt(t);
    const int64_t end = std::min(to, b.start + kBucketS);
    b.gpu_s[account] += static_cast<double>(gpus) * static_cast<double>(end - t);
    t = end;
  }
}

GpuHoursWindow::Bucket& GpuHoursWindow::BucketAt(int64_t t) {
  const int64_t start = t - ((t % kBucketS) + kBucketS) % kBucketS;
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), start,
                             [](const Bucket& b, int64_t s) { return b.start < s; });
  if (it == buckets_.end() || it->start != start) it = buckets_.insert(it, Bucket{start, {}});
  return *it;
}

std::map<std::string, double> GpuHoursWindow::HoursByAccount() const {
  std::map<std::string, double> hours;
  for (const Bucket& b : buckets_) {
    for (const auto& [account, s] : b.gpu_s) hours[account] += s / 3600.0;
  }
  return hours;
}

}  // namespace sluice::ctld
