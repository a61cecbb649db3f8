// `sluice state dump` / `sluice state restore`: a StateStore's records as one StateDump
// message (proto/state_dump.proto) in a file. Each engine reads its dump in one snapshot
// (StateStore::Dump: a consistent backup while the controller runs); RestoreState writes
// one into an empty store of any engine through the StateStore interface, so a dump of
// SQLite restores into PostgreSQL.
//   StateDump dump;
//   RETURN_IF_ERROR(store->Dump(&dump));
//   RETURN_IF_ERROR(WriteDumpFile(dump, "/backup/state.dump"));
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/config.h"
#include "state_dump.pb.h"
#include "storage/state_store.h"

namespace sluice::storage {

inline constexpr uint32_t kStateDumpFormat = 1;

// Fills a dump from the serialized rows every engine stores (checking each parses).
class DumpBuilder {
 public:
  DumpBuilder(StateDump* out, std::string source);
  Status Job(int64_t id, const std::string& data, bool history);
  Status Script(int64_t id, const std::string& data);
  Status Reservation(const std::string& name, const std::string& data);
  void Node(const NodeStateRecord& n);
  void Assoc(const AssocRecord& r);
  // `next` as stored, raised above every job added (as LoadAll never hands out one in use).
  void NextJobId(int64_t next);

 private:
  StateDump* out_;
};

// Writes `dump` into `target`, which must hold nothing yet (FailedPrecondition naming
// what it holds): the jobs, the history, scripts, reservations, node flags and
// next_job_id in one batch, then the association records.
Status RestoreState(const StateDump& dump, StateStore* target);

// The file: written atomically, mode 0600 (it holds scripts and environments).
Status WriteDumpFile(const StateDump& dump, const std::string& path);
// Errors: unreadable, not a dump, a newer format than this build reads.
Expected<StateDump> ReadDumpFile(const std::string& path);
// "jobs=3 history=10 scripts=3 reservations=1 nodes=2 assoc=5 next_job_id=14"
std::string DumpSummary(const StateDump& dump);

// The store the controllers of `config` keep their state in (StateStorageType: the
// SQLite file in StateSaveLocation, or PostgreSQL), and its libpq connection string.
// Without `create`, a missing SQLite file is NotFound.
Expected<std::unique_ptr<StateStore>> OpenStateStore(const Config& config, bool create);
std::string StateConnString(const Config& config);

}  // namespace sluice::storage
