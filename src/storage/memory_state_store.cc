#include "storage/memory_state_store.h"

#include <algorithm>

#include "storage/state_dump.h"

namespace sluice::storage {

Expected<LoadedState> MemoryStateStore::LoadAll() {
  LoadedState out;
  for (const auto& [id, data] : tables_.jobs) {
    ASSIGN_OR_RETURN(JobInfo job, ParseJobRecord(id, data));
    out.next_job_id = std::max(out.next_job_id, id + 1);
    out.jobs.push_back(std::move(job));
  }
  for (const auto& [name, rec] : tables_.nodes) out.nodes.push_back(rec);
  out.next_job_id = std::max(out.next_job_id, tables_.next_job_id);
  for (const auto& [name, data] : tables_.reservations) {
    ASSIGN_OR_RETURN(ReservationInfo r, ParseReservationRecord(name, data));
    out.reservations.push_back(std::move(r));
  }
  return out;
}

void MemoryStateStore::Apply(const WriteBatch::Op& op, Tables* t) {
  std::visit(
      [t](const auto& o) {
        using Op = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<Op, WriteBatch::JobPut>) {
          t->jobs[o.id] = o.data;
        } else if constexpr (std::is_same_v<Op, WriteBatch::JobArchive>) {
          auto it = t->jobs.find(o.id);
          if (it == t->jobs.end()) return;
          t->history[o.id] = std::move(it->second);
          t->jobs.erase(it);
        } else if constexpr (std::is_same_v<Op, WriteBatch::JobDelete>) {
          t->jobs.erase(o.id);
        } else if constexpr (std::is_same_v<Op, WriteBatch::ScriptPut>) {
          t->scripts[o.id] = o.data;
        } else if constexpr (std::is_same_v<Op, WriteBatch::ScriptDelete>) {
          t->scripts.erase(o.id);
        } else if constexpr (std::is_same_v<Op, NodeStateRecord>) {
          t->nodes[o.name] = o;
        } else if constexpr (std::is_same_v<Op, WriteBatch::NextId>) {
          t->next_job_id = o.next;
        } else if constexpr (std::is_same_v<Op, WriteBatch::ResvPut>) {
          t->reservations[o.name] = o.data;
        } else {
          static_assert(std::is_same_v<Op, WriteBatch::ResvDelete>);
          t->reservations.erase(o.name);
        }
      },
      op);
}

bool MemoryStateStore::RefuseWrite() {
  if (fail_writes_ <= 0) return false;
  --fail_writes_;
  return true;
}

Status MemoryStateStore::Write(const WriteBatch& batch) {
  if (batch.empty()) return Status::Ok();
  if (RefuseWrite()) return Unavailable("state store: write refused (test)");
  for (const auto& op : batch.ops()) Apply(op, &tables_);  // in memory nothing fails midway
  ++batches_written_;
  return Status::Ok();
}

Expected<std::optional<JobInfo>> MemoryStateStore::LoadHistoryJob(int64_t job_id) {
  auto it = tables_.history.find(job_id);
  if (it == tables_.history.end()) return std::optional<JobInfo>();
  ASSIGN_OR_RETURN(JobInfo job, ParseJobRecord(job_id, it->second));
  return std::optional<JobInfo>(std::move(job));
}

Expected<std::optional<JobScript>> MemoryStateStore::LoadScript(int64_t id) {
  auto it = tables_.scripts.find(id);
  if (it == tables_.scripts.end()) return std::optional<JobScript>();
  ASSIGN_OR_RETURN(JobScript script, ParseScriptRecord(id, it->second));
  return std::optional<JobScript>(std::move(script));
}

Expected<std::vector<AssocRecord>> MemoryStateStore::LoadAssocRecords() {
  std::vector<AssocRecord> out;
  for (const auto& [key, data] : assoc_) out.push_back({key.first, key.second, data});
  return out;
}

Status MemoryStateStore::WriteAssocRecords(const std::vector<AssocRecord>& puts,
                                           const std::vector<AssocRecord>& erase) {
  if (puts.empty() && erase.empty()) return Status::Ok();
  if (RefuseWrite()) return Unavailable("state store: write refused (test)");
  for (const auto& r : puts) assoc_[{r.kind, r.name}] = r.data;
  for (const auto& r : erase) assoc_.erase({r.kind, r.name});
  return Status::Ok();
}

Status MemoryStateStore::Dump(StateDump* out) {
  DumpBuilder b(out, "memory");
  for (const auto& [id, data] : tables_.jobs) RETURN_IF_ERROR(b.Job(id, data, false));
  for (const auto& [id, data] : tables_.history) RETURN_IF_ERROR(b.Job(id, data, true));
  for (const auto& [id, data] : tables_.scripts) RETURN_IF_ERROR(b.Script(id, data));
  for (const auto& [name, data] : tables_.reservations) RETURN_IF_ERROR(b.Reservation(name, data));
  for (const auto& [name, rec] : tables_.nodes) b.Node(rec);
  for (const auto& [key, data] : assoc_) b.Assoc({key.first, key.second, data});
  b.NextJobId(tables_.next_job_id);
  return Status::Ok();
}

}  // namespace sluice::storage
