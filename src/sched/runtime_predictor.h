// Runtime prediction for backfill planning (Tsafrir, Etsion & Feitelson 2007): a job is
// predicted to run as long as the mean of its user's last two actual run times (only one
// known: that one), never longer than its own time limit; with no history it predicts its
// limit. History is keyed by a caller-chosen string (the user, or user + job name).
//
// A running job that outlives its prediction gets a longer one, step by step
// (ExtendPrediction): the next rung of a fixed ladder of common estimates (1 min, 5 min,
// 15 min, 30 min, 1 h, 2 h, 5 h, 10 h, 20 h, 50 h, 100 h) above the time it has run, then
// doubling, always capped at the limit. Predictions are for planning only: a job is still
// killed at its own time limit, never at a prediction.
//
// Pure and deterministic: no clock, no I/O; the caller feeds it the runs that ended.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace sluice::sched {

class RuntimePredictor {
 public:
  // A run of `runtime_s` seconds under `key` ended; the two latest are kept.
  void Record(const std::string& key, int64_t runtime_s);

  // The predicted run time of a new job under `key` with time limit `limit_s`
  // (0 = unlimited: the history mean, or 0 = "unknown" with no history).
  int64_t Predict(const std::string& key, int64_t limit_s) const;

  // Whether any run under `key` has been recorded.
  bool HasHistory(const std::string& key) const;

 private:
  struct Last2 {
    int64_t latest = 0;
    int64_t before = -1;  // -1 = only one run known
  };
  std::unordered_map<std::string, Last2> history_;  // lookups only, never iterated
};

// The prediction in force for a job predicted to run `predicted_s` that has run
// `elapsed_s` so far: `predicted_s` while elapsed_s < predicted_s, else the first ladder
// step (or doubling past the ladder) above elapsed_s, capped at `limit_s` (0 = no cap).
int64_t ExtendPrediction(int64_t predicted_s, int64_t elapsed_s, int64_t limit_s);

// The planned end of a running job that started at `start` with prediction `predicted_s`
// and time limit `limit_s`, as seen at `now`: start + ExtendPrediction(...).
int64_t PredictedEnd(int64_t start, int64_t predicted_s, int64_t limit_s, int64_t now);

}  // namespace sluice::sched
