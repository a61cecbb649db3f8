// Advance reservations in the scheduler. See reservations.h.
#include "sched/reservations.h"

#include <algorithm>
#include <set>

#include "common/hostlist.h"
#include "sched/placement.h"

namespace sluice::sched {

namespace {

bool Live(const ReservationWindow& r, int64_t now) { return r.end > now && r.end > r.start; }

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

const ReservationWindow* FindReservation(const ClusterSnapshot& snapshot, const std::string& name,
                                         int64_t now) {
  for (const ReservationWindow& r : snapshot.reservations)
    if (r.name == name && Live(r, now)) return &r;
  return nullptr;
}

void BlockReservations(Timeline* timeline, const ClusterSnapshot& snapshot, int64_t now,
                       const std::string& except, const ReservationWindow* only) {
  for (const ReservationWindow& r : snapshot.reservations) {
    if (!Live(r, now) || (!except.empty() && r.name == except)) continue;
    for (const std::string& name : r.nodes) {
      const int i = timeline->FindNode(name);
      if (i >= 0) timeline->Block(i, std::max(r.start, now), r.end);
    }
  }
  if (!only) return;
  std::vector<char> member(timeline->node_count(), 0);
  for (const std::string& name : only->nodes) {
    const int i = timeline->FindNode(name);
    if (i >= 0) member[i] = 1;
  }
  for (int i = 0; i < timeline->node_count(); ++i)
    if (!member[i]) timeline->Block(i, now, kForever);
}

std::string BlockedByReason(const ClusterSnapshot& snapshot, const std::vector<std::string>& nodes,
                            int64_t start, int64_t end) {
  std::set<std::string> in_way;
  bool maint = false;
  for (const ReservationWindow& r : snapshot.reservations) {
    if (!Live(r, start) || r.start >= end || r.end <= start) continue;
    for (const std::string& n : nodes) {
      if (!Has(r.nodes, n)) continue;
      in_way.insert(n);
      maint = maint || r.maint;
    }
  }
  if (in_way.empty()) return "";
  if (maint) return kReasonMaint;
  return "ReqNodeNotAvail, UnavailableNodes:" +
         CompressHostlistSorted(std::vector<std::string>(in_way.begin(), in_way.end()));
}

}  // namespace sluice::sched
