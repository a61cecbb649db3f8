// PgStateStore: the StateStore in PostgreSQL (StateStorageType=state/pgsql), for two or
// three controllers sharing one database (high availability, docs/high-availability.md).
// The same tables as SqliteStateStore, prefixed ctld_ (pg_session.h); one WriteBatch is one
// transaction.
//
// The connection comes back by itself after it broke (pg_session.h).
//
// Fencing: after FenceWith(epoch), every write first reads the lease row (pg_lease.h) FOR
// SHARE and is refused (kFailedPrecondition, nothing written) unless the lease still
// carries `epoch`. A controller that lost its lease -- paused, cut off, not yet aware --
// therefore cannot commit anything, and the row lock orders each write before or after a
// takeover, never across it.
#pragma once

#include <memory>
#include <string>

#include "storage/pg_session.h"
#include "storage/state_store.h"

namespace sluice::storage {

class PgStateStore final : public StateStore {
 public:
  // `conn` is a libpq connection string (PgConnString in common/pg_conn_string.h).
  static Expected<std::unique_ptr<PgStateStore>> Open(const std::string& conn);
  ~PgStateStore() override;
  PgStateStore(const PgStateStore&) = delete;
  PgStateStore& operator=(const PgStateStore&) = delete;

  // Writes from now on carry this lease epoch (0: unfenced, a single controller).
  void FenceWith(int64_t epoch) { epoch_ = epoch; }

  Expected<LoadedState> LoadAll() override;
  Status Write(const WriteBatch& batch) override;
  Expected<std::optional<JobInfo>> LoadHistoryJob(int64_t job_id) override;
  Expected<std::optional<JobScript>> LoadScript(int64_t id) override;
  Expected<std::vector<AssocRecord>> LoadAssocRecords() override;
  Status WriteAssocRecords(const std::vector<AssocRecord>& puts,
                           const std::vector<AssocRecord>& erase) override;
  Status Dump(StateDump* out) override;

 private:
  explicit PgStateStore(const std::string& conn);
  // Runs `apply(pqxx::work&)` in one transaction, behind the fence.
  template <typename Fn>
  Status Transaction(Fn apply);
  PgSession session_;
  int64_t epoch_ = 0;
};

}  // namespace sluice::storage
