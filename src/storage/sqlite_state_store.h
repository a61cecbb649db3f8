// SqliteStateStore: the StateStore in one SQLite database file (WAL mode,
// synchronous=FULL, so a committed transaction survives a crash or power loss); the
// controller daemon's store.
//
// Tables: jobs(id, state, data) holds every job the controller still tracks as a
// serialized JobInfo (state is indexed); job_history has the same shape and receives the
// jobs the controller purged; job_scripts(id, data) a serialized JobScript; meta holds
// next_job_id; reservations(name, data) serialized ReservationInfo; nodes the per-node
// admin flags; assoc_records(kind, name, data) (sqlite_assoc_records.cc). One WriteBatch
// is one transaction.
#pragma once

#include <memory>
#include <string>

#include "storage/state_store.h"

struct sqlite3;

namespace sluice::storage {

class SqliteStateStore final : public StateStore {
 public:
  // Opens (creating if needed) the database file at `path`; the directory must exist.
  static Expected<std::unique_ptr<SqliteStateStore>> Open(const std::string& path);
  ~SqliteStateStore() override;
  SqliteStateStore(const SqliteStateStore&) = delete;
  SqliteStateStore& operator=(const SqliteStateStore&) = delete;

  Expected<LoadedState> LoadAll() override;
  Status Write(const WriteBatch& batch) override;
  Expected<std::optional<JobInfo>> LoadHistoryJob(int64_t job_id) override;
  Expected<std::optional<JobScript>> LoadScript(int64_t id) override;
  Expected<std::vector<AssocRecord>> LoadAssocRecords() override;
  Status WriteAssocRecords(const std::vector<AssocRecord>& puts,
                           const std::vector<AssocRecord>& erase) override;
  Status Dump(StateDump* out) override;

 private:
  explicit SqliteStateStore(sqlite3* db) : db_(db) {}
  Status Exec(const char* sql);
  Status ApplyOp(const WriteBatch::Op& op);
  // LoadAll's node flags, next_job_id (as stored) and reservations.
  Status LoadAllButJobs(LoadedState* out);
  sqlite3* db_;
};

}  // namespace sluice::storage
