// RecentEvents: the last node failures, requeues and preemptions the controller acted
// on, newest last, for the dashboard (dashboard_view.h). A bounded ring: the oldest
// event is dropped once `capacity` are held. Memory only (a restart starts empty; the
// accounting records and the log keep the history). Owner-thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

namespace sluice::ctld {

enum class EventKind { kNodeFailure, kRequeue, kPreemption };

// "node_failure", "requeue", "preemption".
const char* EventKindName(EventKind kind);

struct ClusterEvent {
  int64_t time = 0;  // unix seconds
  EventKind kind = EventKind::kRequeue;
  int64_t job_id = 0;  // 0: none (a node failure)
  uint32_t uid = 0;    // the job's owner (PrivateData), when job_id is set
  std::string node;    // "" when none
  std::string text;    // what happened, in words
};

class RecentEvents {
 public:
  explicit RecentEvents(size_t capacity = 200) : capacity_(capacity) {}
  void Add(ClusterEvent event);
  const std::deque<ClusterEvent>& events() const { return events_; }

 private:
  size_t capacity_;
  std::deque<ClusterEvent> events_;
};

}  // namespace sluice::ctld
