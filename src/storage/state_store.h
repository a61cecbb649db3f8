// StateStore: the controller's durable state in one SQLite database (WAL mode,
// synchronous=FULL, so a committed transaction survives a crash or power loss).
//
// Tables: jobs(id, state, data) holds every job the controller still tracks as a
// serialized JobInfo (state is indexed for queries); job_history has the same shape
// and receives jobs the controller purged from memory (kept for accounting); meta
// holds next_job_id; reservations(name, data) holds advance reservations as serialized
// ReservationInfo; nodes holds the persistent per-node admin flags (drain/down and
// the reason). A WriteBatch collects mutations; Write() applies one batch in ONE
// transaction (group commit: the controller's owner thread batches every mutation of
// one queue drain). Not thread-safe: one owner thread uses a StateStore.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"
#include "types.pb.h"

struct sqlite3;

namespace sluice::storage {

struct NodeStateRecord {
  std::string name;
  bool drain = false;
  bool down = false;
  std::string reason;
  int64_t reason_time = 0;
  uint32_t reason_uid = 0;
  bool operator==(const NodeStateRecord&) const = default;
};

struct LoadedState {
  std::vector<JobInfo> jobs;            // ascending job id
  std::vector<NodeStateRecord> nodes;   // ascending name
  int64_t next_job_id = 1;
  std::vector<ReservationInfo> reservations;  // ascending name
};

class WriteBatch {
 public:
  void PutJob(const JobInfo& job);      // insert or replace
  void ArchiveJob(int64_t job_id);      // move jobs -> job_history
  void DeleteJob(int64_t job_id);       // drop from jobs (no history)
  void PutNode(const NodeStateRecord& node);
  void SetNextJobId(int64_t next);
  void PutReservation(const ReservationInfo& resv);   // insert or replace
  void DeleteReservation(const std::string& name);
  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }
  void Clear() { ops_.clear(); }

  struct JobPut { int64_t id; int state; std::string data; };
  struct JobArchive { int64_t id; };
  struct JobDelete { int64_t id; };
  struct NextId { int64_t next; };
  struct ResvPut { std::string name; std::string data; };
  struct ResvDelete { std::string name; };
  using Op = std::variant<JobPut, JobArchive, JobDelete, NodeStateRecord, NextId, ResvPut,
                          ResvDelete>;
  const std::vector<Op>& ops() const { return ops_; }

 private:
  std::vector<Op> ops_;
};

// An association-database record (sacctmgr entities, fair-share usage): an opaque
// serialized message under (kind, name). See assoc_records.cc.
struct AssocRecord {
  std::string kind;
  std::string name;
  std::string data;
  bool operator==(const AssocRecord&) const = default;
};

class StateStore {
 public:
  // Opens (creating if needed) the database file at `path`; the directory must exist.
  static Expected<std::unique_ptr<StateStore>> Open(const std::string& path);
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  Expected<LoadedState> LoadAll();
  // Applies every op of `batch` in order in one transaction; all or nothing.
  Status Write(const WriteBatch& batch);
  // A job from job_history (nullopt when absent).
  Expected<std::optional<JobInfo>> LoadHistoryJob(int64_t job_id);
  // Association records (table assoc_records; assoc_records.cc): all of them, ordered by
  // (kind, name); and one transaction that writes `puts` then removes `erase` (data unused).
  Expected<std::vector<AssocRecord>> LoadAssocRecords();
  Status WriteAssocRecords(const std::vector<AssocRecord>& puts,
                           const std::vector<AssocRecord>& erase);

 private:
  explicit StateStore(sqlite3* db) : db_(db) {}
  Status Exec(const char* sql);
  Status ApplyOp(const WriteBatch::Op& op);
  sqlite3* db_;
};

}  // namespace sluice::storage
