#include "ctld/components/reservation_book.h"

#include <algorithm>

namespace sluice::ctld {
namespace {

bool Overlap(const ReservationInfo& r, int64_t start, int64_t end) {
  return r.start_time() < end && r.end_time() > start;
}

bool HasNode(const ReservationInfo& r, const std::string& node) {
  return std::find(r.nodes().begin(), r.nodes().end(), node) != r.nodes().end();
}

}  // namespace

bool HasFlag(const ReservationInfo& r, const char* flag) {
  return std::find(r.flags().begin(), r.flags().end(), flag) != r.flags().end();
}

void ReservationBook::Load(const std::vector<ReservationInfo>& list) {
  for (const ReservationInfo& r : list) resvs_[r.name()] = r;
}

const ReservationInfo* ReservationBook::Find(const std::string& name) const {
  auto it = resvs_.find(name);
  return it == resvs_.end() ? nullptr : &it->second;
}

Status ReservationBook::Put(const ReservationInfo& r) {
  if (store_) {
    storage::WriteBatch batch;
    batch.PutReservation(r);
    RETURN_IF_ERROR(store_->Write(batch));
  }
  resvs_[r.name()] = r;
  return Status::Ok();
}

Status ReservationBook::Erase(const std::string& name) {
  if (store_) {
    storage::WriteBatch batch;
    batch.DeleteReservation(name);
    RETURN_IF_ERROR(store_->Write(batch));
  }
  resvs_.erase(name);
  return Status::Ok();
}

void ReservationBook::Roll(int64_t now) {
  std::vector<std::string> ended;
  for (const auto& [name, r] : resvs_) {
    if (r.end_time() > now) continue;
    const int64_t period = HasFlag(r, "WEEKLY") ? 7 * 86400 : HasFlag(r, "DAILY") ? 86400 : 0;
    if (period == 0) {
      ended.push_back(name);
      continue;
    }
    const int64_t steps = (now - r.end_time()) / period + 1;
    ReservationInfo next = r;
    next.set_start_time(r.start_time() + steps * period);
    next.set_end_time(r.end_time() + steps * period);
    (void)Put(next);  // a failed write leaves it ended: retried at the next roll
  }
  for (const std::string& name : ended) (void)Erase(name);
}

bool ReservationBook::NodeReserved(const std::string& node, const std::string& except,
                                   int64_t start, int64_t end) const {
  for (const auto& [name, r] : resvs_) {
    if (name != except && Overlap(r, start, end) && HasNode(r, node)) return true;
  }
  return false;
}

bool ReservationBook::Conflicts(const ReservationInfo& r) const {
  if (HasFlag(r, "OVERLAP")) return false;
  for (const auto& [name, o] : resvs_) {
    if (name == r.name() || !Overlap(o, r.start_time(), r.end_time()) || HasFlag(o, "OVERLAP")) {
      continue;
    }
    for (const std::string& n : o.nodes()) {
      if (HasNode(r, n)) return true;
    }
  }
  return false;
}

std::set<std::string> ReservationBook::NodesInMaint(int64_t now) const {
  std::set<std::string> out;
  for (const auto& [name, r] : resvs_) {
    if (!HasFlag(r, "MAINT") || r.start_time() > now || (r.end_time() > 0 && r.end_time() <= now)) {
      continue;
    }
    out.insert(r.nodes().begin(), r.nodes().end());
  }
  return out;
}

void ReservationBook::AddTo(sched::ClusterSnapshot* snap) const {
  for (const auto& [name, r] : resvs_) {
    sched::ReservationWindow w;
    w.name = name;
    w.start = r.start_time();
    w.end = r.end_time();
    w.nodes.assign(r.nodes().begin(), r.nodes().end());
    w.maint = HasFlag(r, "MAINT");
    snap->reservations.push_back(std::move(w));
  }
}

}  // namespace sluice::ctld
