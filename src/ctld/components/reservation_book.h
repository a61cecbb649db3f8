// ReservationBook: the advance reservations the controller holds, in memory and in the
// StateStore; each change is written (its own transaction) before it is kept, so an
// acknowledged `scontrol create reservation` survives a crash. It knows reservations
// only: whether jobs or nodes allow a change is the controller's to check
// (reservation_ops.cc). Owned and used by the controller's owner thread.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "sched/types.h"
#include "storage/state_store.h"
#include "types.pb.h"

namespace sluice::ctld {

bool HasFlag(const ReservationInfo& r, const char* flag);

class ReservationBook {
 public:
  // `store` may be null (nothing is persisted).
  explicit ReservationBook(storage::StateStore* store) : store_(store) {}

  void Load(const std::vector<ReservationInfo>& list);
  const ReservationInfo* Find(const std::string& name) const;
  const std::map<std::string, ReservationInfo>& all() const { return resvs_; }

  Status Put(const ReservationInfo& r);   // written, then kept (insert or replace)
  Status Erase(const std::string& name);  // deleted, then forgotten

  // Reservations that ended: DAILY/WEEKLY ones move to their next period, others go.
  void Roll(int64_t now);
  // Does `node` belong to a reservation other than `except` overlapping [start, end)?
  bool NodeReserved(const std::string& node, const std::string& except, int64_t start,
                    int64_t end) const;
  // Does a reservation other than `r` overlap it in time on a shared node (neither OVERLAP)?
  bool Conflicts(const ReservationInfo& r) const;
  // Nodes of the MAINT reservations active at `now`.
  std::set<std::string> NodesInMaint(int64_t now) const;
  // The windows the scheduler plans around.
  void AddTo(sched::ClusterSnapshot* snap) const;

 private:
  storage::StateStore* store_;
  std::map<std::string, ReservationInfo> resvs_;
};

}  // namespace sluice::ctld
