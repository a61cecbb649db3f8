// LockedStateStore: another StateStore behind one mutex, so that two threads may use it:
// the controller's owner thread (script loads, reservation and association writes) and its
// commit writer thread (the pipelined group commit, ctld/runtime/owner_loop.h). Each call
// runs whole under the lock: a read waits for a write in progress and then sees it.
#pragma once

#include <mutex>

#include "storage/state_store.h"

namespace sluice::storage {

class LockedStateStore final : public StateStore {
 public:
  explicit LockedStateStore(StateStore* inner) : inner_(inner) {}

  Expected<LoadedState> LoadAll() override;
  Status Write(const WriteBatch& batch) override;
  Expected<std::optional<JobInfo>> LoadHistoryJob(int64_t job_id) override;
  Expected<std::optional<JobScript>> LoadScript(int64_t id) override;
  Expected<std::vector<AssocRecord>> LoadAssocRecords() override;
  Status WriteAssocRecords(const std::vector<AssocRecord>& puts,
                           const std::vector<AssocRecord>& erase) override;
  Status Dump(StateDump* out) override;

 private:
  std::mutex mu_;
  StateStore* inner_;
};

}  // namespace sluice::storage
