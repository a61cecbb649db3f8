// Histogram: observations counted into fixed, cumulative-on-output buckets, as
// Prometheus histograms are exposed (metrics_text.h). Not thread-safe: the owner keeps it
// behind its own lock or thread.
//   Histogram h(Histogram::Exponential(0.001, 2, 12));  // 1 ms .. ~2 s
//   h.Observe(0.004);
#pragma once

#include <cstdint>
#include <vector>

namespace sluice {

class Histogram {
 public:
  // `bounds`: the buckets' upper bounds, ascending; +Inf is implicit.
  explicit Histogram(std::vector<double> bounds);
  // start, start*factor, ... (`count` bounds).
  static std::vector<double> Exponential(double start, double factor, int count);

  void Observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  // Per bucket (not cumulative), bounds().size() + 1 entries: the last one is +Inf.
  const std::vector<int64_t>& counts() const { return counts_; }
  int64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<int64_t> counts_;
  int64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace sluice
