// ShapeTable: groups one pass's pending jobs by request shape (everything placement looks
// at except the time limit) so per-shape work is done once: feasibility, compiled filters,
// and memos that stay valid while a pass only ever removes capacity from its timeline:
//   - fit-now failed for duration d  => it fails for every duration >= d;
//   - no start within the window for d => none for every duration >= d;
//   - earliest start T for d          => the earliest start for durations >= d is >= T.
// Pure; entries keep pointers to the pass's JobRequests.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/job_filter.h"
#include "sched/timeline.h"
#include "sched/types.h"

namespace sluice::sched {

struct Shape {
  const JobRequest* example = nullptr;
  bool never = false;  // can never run on this cluster as configured
  std::string never_reason;
  Need need;
  JobFilter filter;
  int64_t fit_now_fails_from = kForever + 1;          // durations >= this cannot start now
  int64_t no_start_from = kForever + 1;               // durations >= this have no start in window
  std::vector<std::pair<int64_t, int64_t>> earliest;  // (duration, earliest start) seen

  // A lower bound on the earliest start for `duration` (`floor` when nothing is known).
  int64_t StartBound(int64_t duration, int64_t floor) const;
  void NoteStart(int64_t duration, int64_t start);
};

class ShapeTable {
 public:
  // `snapshot` and `timeline` must outlive the table.
  ShapeTable(const ClusterSnapshot& snapshot, const Timeline& timeline)
      : snapshot_(snapshot), timeline_(timeline) {}

  Shape& Get(const JobRequest& job);
  size_t size() const { return shapes_.size(); }

 private:
  void Fill(Shape* shape);

  const ClusterSnapshot& snapshot_;
  const Timeline& timeline_;
  std::unordered_map<uint64_t, std::vector<size_t>> buckets_;
  std::deque<Shape> shapes_;  // stable references
};

}  // namespace sluice::sched
