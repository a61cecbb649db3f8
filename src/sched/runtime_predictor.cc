// User-history runtime prediction: see runtime_predictor.h.
#include "sched/runtime_predictor.h"

#include <algorithm>
#include <array>

namespace sluice::sched {

namespace {

constexpr int64_t kMinute = 60;
constexpr int64_t kHour = 3600;
constexpr std::array<int64_t, 11> kLadder = {1 * kMinute, 5 * kMinute, 15 * kMinute, 30 * kMinute,
                                             1 * kHour,   2 * kHour,   5 * kHour,    10 * kHour,
                                             20 * kHour,  50 * kHour,  100 * kHour};

int64_t CapAt(int64_t value, int64_t limit_s) {
  return limit_s > 0 ? std::min(value, limit_s) : value;
}

}  // namespace

void RuntimePredictor::Record(const std::string& key, int64_t runtime_s) {
  auto [it, inserted] = history_.try_emplace(key);
  Last2& last = it->second;
  last.before = inserted ? -1 : last.latest;
  last.latest = std::max<int64_t>(0, runtime_s);
}

int64_t RuntimePredictor::Predict(const std::string& key, int64_t limit_s) const {
  auto it = history_.find(key);
  if (it == history_.end()) return limit_s;
  const Last2& last = it->second;
  const int64_t mean =
      last.before < 0 ? last.latest : (last.latest + last.before + 1) / 2;  // rounded up
  return CapAt(std::max<int64_t>(1, mean), limit_s);
}

bool RuntimePredictor::HasHistory(const std::string& key) const { return history_.count(key) > 0; }

int64_t ExtendPrediction(int64_t predicted_s, int64_t elapsed_s, int64_t limit_s) {
  if (predicted_s <= 0) return limit_s;
  if (elapsed_s < predicted_s) return CapAt(predicted_s, limit_s);
  if (limit_s > 0 && elapsed_s >= limit_s) return limit_s;
  for (int64_t step : kLadder) {
    if (step > elapsed_s) return CapAt(step, limit_s);
  }
  int64_t next = kLadder.back();
  while (next <= elapsed_s) next *= 2;
  return CapAt(next, limit_s);
}

int64_t PredictedEnd(int64_t start, int64_t predicted_s, int64_t limit_s, int64_t now) {
  return start + ExtendPrediction(predicted_s, std::max<int64_t>(0, now - start), limit_s);
}

}  // namespace sluice::sched
