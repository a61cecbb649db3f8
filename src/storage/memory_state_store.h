// MemoryStateStore: the StateStore in process memory, for unit tests and benchmarks that
// need a controller without a database. It keeps what a database would across controller
// restarts as long as the object lives (a test restarts a Controller on the same store).
// It also counts the batches written and can be told to fail the next writes, so tests
// can check what a controller does when its store refuses a commit.
#pragma once

#include <map>
#include <string>

#include "storage/state_store.h"

namespace sluice::storage {

class MemoryStateStore final : public StateStore {
 public:
  Expected<LoadedState> LoadAll() override;
  Status Write(const WriteBatch& batch) override;
  Expected<std::optional<JobInfo>> LoadHistoryJob(int64_t job_id) override;
  Expected<std::optional<JobScript>> LoadScript(int64_t id) override;
  Expected<std::vector<AssocRecord>> LoadAssocRecords() override;
  Status WriteAssocRecords(const std::vector<AssocRecord>& puts,
                           const std::vector<AssocRecord>& erase) override;
  Status Dump(StateDump* out) override;

  // The next `n` Write/WriteAssocRecords calls fail (and change nothing).
  void FailNextWrites(int n) { fail_writes_ = n; }
  int64_t batches_written() const { return batches_written_; }
  size_t scripts_stored() const { return tables_.scripts.size(); }

 private:
  struct Tables {
    std::map<int64_t, std::string> jobs;  // serialized, as a database would hold them
    std::map<int64_t, std::string> history;
    std::map<int64_t, std::string> scripts;
    std::map<std::string, NodeStateRecord> nodes;
    std::map<std::string, std::string> reservations;
    int64_t next_job_id = 1;
  };
  static void Apply(const WriteBatch::Op& op, Tables* t);
  bool RefuseWrite();

  Tables tables_;
  std::map<std::pair<std::string, std::string>, std::string> assoc_;
  int fail_writes_ = 0;
  int64_t batches_written_ = 0;
};

}  // namespace sluice::storage
