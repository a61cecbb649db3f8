#include "storage/locked_state_store.h"

namespace sluice::storage {

Expected<LoadedState> LockedStateStore::LoadAll() {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_->LoadAll();
}

Status LockedStateStore::Write(const WriteBatch& batch) {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_->Write(batch);
}

Expected<std::optional<JobInfo>> LockedStateStore::LoadHistoryJob(int64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_->LoadHistoryJob(job_id);
}

Expected<std::optional<JobScript>> LockedStateStore::LoadScript(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_->LoadScript(id);
}

Expected<std::vector<AssocRecord>> LockedStateStore::LoadAssocRecords() {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_->LoadAssocRecords();
}

Status LockedStateStore::WriteAssocRecords(const std::vector<AssocRecord>& puts,
                                           const std::vector<AssocRecord>& erase) {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_->WriteAssocRecords(puts, erase);
}

Status LockedStateStore::Dump(StateDump* out) {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_->Dump(out);
}

}  // namespace sluice::storage
