// StateStore: where the controller keeps its durable state, as an interface so that the
// controller does not care which engine holds it. Implementations: SqliteStateStore
// (sqlite_state_store.h, the daemon's), MemoryStateStore (memory_state_store.h, for unit
// tests and benchmarks); the same contract tests run against each (state_store_contract_test.cc).
//
// What is stored: every job the controller still tracks (a JobInfo, without its script and
// environment), the jobs it purged (history, for accounting), each job's JobScript under
// the id the controller names, next_job_id, advance reservations, the per-node admin
// flags, and the association records. A WriteBatch collects mutations; Write() applies one
// batch all or nothing (group commit: the controller's owner thread batches every mutation
// of one queue drain). Not thread-safe: one owner thread uses a StateStore.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"
#include "types.pb.h"

namespace sluice {
class StateDump;  // proto/state_dump.proto
}

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
  std::vector<JobInfo> jobs;                  // ascending job id
  std::vector<NodeStateRecord> nodes;         // ascending name
  int64_t next_job_id = 1;                    // never at or below a stored job's id
  std::vector<ReservationInfo> reservations;  // ascending name
};

class WriteBatch {
 public:
  void PutJob(const JobInfo& job);                      // insert or replace
  void ArchiveJob(int64_t job_id);                      // move jobs -> job_history
  void DeleteJob(int64_t job_id);                       // drop from jobs (no history)
  void PutScript(int64_t id, const JobScript& script);  // insert or replace
  void DeleteScript(int64_t id);
  void PutNode(const NodeStateRecord& node);
  void SetNextJobId(int64_t next);
  void PutReservation(const ReservationInfo& resv);  // insert or replace
  void DeleteReservation(const std::string& name);
  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }
  void Clear() { ops_.clear(); }

  // Serialized records: what every engine stores.
  struct JobPut {
    int64_t id;
    int state;
    std::string data;
  };
  struct JobArchive {
    int64_t id;
  };
  struct JobDelete {
    int64_t id;
  };
  struct ScriptPut {
    int64_t id;
    std::string data;
  };
  struct ScriptDelete {
    int64_t id;
  };
  struct NextId {
    int64_t next;
  };
  struct ResvPut {
    std::string name;
    std::string data;
  };
  struct ResvDelete {
    std::string name;
  };
  using Op = std::variant<JobPut, JobArchive, JobDelete, ScriptPut, ScriptDelete, NodeStateRecord,
                          NextId, ResvPut, ResvDelete>;
  const std::vector<Op>& ops() const { return ops_; }

 private:
  std::vector<Op> ops_;
};

// An association-database record (sacctmgr entities, fair-share usage): an opaque
// serialized message under (kind, name).
struct AssocRecord {
  std::string kind;
  std::string name;
  std::string data;
  bool operator==(const AssocRecord&) const = default;
};

class StateStore {
 public:
  virtual ~StateStore() = default;

  virtual Expected<LoadedState> LoadAll() = 0;
  // Applies every op of `batch` in order, all or nothing.
  virtual Status Write(const WriteBatch& batch) = 0;
  // A job from the history (nullopt when absent).
  virtual Expected<std::optional<JobInfo>> LoadHistoryJob(int64_t job_id) = 0;
  // The script stored under `id` (nullopt when absent).
  virtual Expected<std::optional<JobScript>> LoadScript(int64_t id) = 0;
  // Association records: all of them, ordered by (kind, name); and one all-or-nothing
  // write of `puts` then removal of `erase` (their data unused).
  virtual Expected<std::vector<AssocRecord>> LoadAssocRecords() = 0;
  virtual Status WriteAssocRecords(const std::vector<AssocRecord>& puts,
                                   const std::vector<AssocRecord>& erase) = 0;
  // Every record, read in one snapshot: a consistent backup while a controller writes
  // (`sluice state dump`, state_dump.h).
  virtual Status Dump(StateDump* out) = 0;
};

// Parsers of the serialized records, with the error every engine reports for a corrupt one.
Expected<JobInfo> ParseJobRecord(int64_t id, const std::string& data);
Expected<JobScript> ParseScriptRecord(int64_t id, const std::string& data);
Expected<ReservationInfo> ParseReservationRecord(const std::string& name, const std::string& data);

}  // namespace sluice::storage
