// Advance reservations in the pure scheduler (ClusterSnapshot.reservations): helpers the
// backfill and FIFO schedulers share.
//
// Model: a reservation holds whole nodes during [start, end). A job not in it may not hold
// any of those nodes at any moment of the window (so it either ends before the start or
// waits); a job in it (JobRequest.reservation) runs only on its nodes and starts at a time
// in [start, end) (it may run past the end, as nothing else is reserved there for it).
// Pure: no I/O, no clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/timeline.h"
#include "sched/types.h"

namespace sluice::sched {

inline constexpr char kReasonReservation[] = "Reservation";         // waiting for its window
inline constexpr char kReasonResvDeleted[] = "ReservationDeleted";  // names no reservation
inline constexpr char kReasonMaint[] = "ReqNodeNotAvail, Reserved for maintenance";

// The live reservation called `name` (ending after `now`), or nullptr.
const ReservationWindow* FindReservation(const ClusterSnapshot& snapshot, const std::string& name,
                                         int64_t now);

// Blocks, on `timeline`, every live reservation's nodes for its window, except the one
// named `except` ("" = none). When `only` is given, every node not in it is blocked from
// now on as well (the lane of jobs in reservation `only`).
void BlockReservations(Timeline* timeline, const ClusterSnapshot& snapshot, int64_t now,
                       const std::string& except, const ReservationWindow* only);

// The pending reason of a job not in any reservation that could hold `nodes` over
// [start, end) if reservations were ignored: Slurm's "ReqNodeNotAvail, ..." wording for the
// reservations in the way; "" when none is in the way.
std::string BlockedByReason(const ClusterSnapshot& snapshot, const std::vector<std::string>& nodes,
                            int64_t start, int64_t end);

}  // namespace sluice::sched
