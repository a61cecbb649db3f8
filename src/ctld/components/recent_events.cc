#include "ctld/components/recent_events.h"

namespace sluice::ctld {

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kNodeFailure:
      return "node_failure";
    case EventKind::kRequeue:
      return "requeue";
    case EventKind::kPreemption:
      return "preemption";
  }
  return "unknown";
}

void RecentEvents::Add(ClusterEvent event) {
  if (capacity_ == 0) return;
  if (events_.size() == capacity_) events_.pop_front();
  events_.push_back(std::move(event));
}

}  // namespace sluice::ctld
