// Placement helpers shared by the scheduling policies (the public entry points PlaceJob,
// ApplyAllocation and CheckFeasible are declared in scheduler.h), and the pending-reason
// strings the policies return. Pure: no I/O.
#pragma once

#include "sched/types.h"

namespace sluice::sched {

inline constexpr char kReasonResources[] = "Resources";
inline constexpr char kReasonPriority[] = "Priority";
inline constexpr char kReasonNodeConfig[] = "Requested node configuration is not available";
inline constexpr char kReasonBadConstraints[] = "BadConstraints";

// A copy of `snapshot` with every node available and nothing used: the cluster "as
// configured", for feasibility checks.
ClusterSnapshot EmptyCluster(const ClusterSnapshot& snapshot);

// CheckFeasible on a cluster already emptied with EmptyCluster (lets a pass empty the
// snapshot once for all its jobs).
Decision CheckFeasibleOnEmpty(const ClusterSnapshot& empty, const JobRequest& job);

// True when the request is well formed: num_nodes >= 1, cpus_per_node >= 1, and no
// negative task, memory or GPU counts. Malformed requests never fit anywhere.
bool ValidRequest(const JobRequest& job);

}  // namespace sluice::sched
