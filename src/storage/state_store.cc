#include "storage/state_store.h"

#include <fmt/format.h>

namespace sluice::storage {

void WriteBatch::PutJob(const JobInfo& job) {
  JobPut put{job.job_id(), static_cast<int>(job.state()), {}};
  job.SerializeToString(&put.data);
  ops_.emplace_back(std::move(put));
}
void WriteBatch::ArchiveJob(int64_t job_id) { ops_.emplace_back(JobArchive{job_id}); }
void WriteBatch::DeleteJob(int64_t job_id) { ops_.emplace_back(JobDelete{job_id}); }
void WriteBatch::PutScript(int64_t id, const JobScript& script) {
  ScriptPut put{id, {}};
  script.SerializeToString(&put.data);
  ops_.emplace_back(std::move(put));
}
void WriteBatch::DeleteScript(int64_t id) { ops_.emplace_back(ScriptDelete{id}); }
void WriteBatch::PutNode(const NodeStateRecord& node) { ops_.emplace_back(node); }
void WriteBatch::SetNextJobId(int64_t next) { ops_.emplace_back(NextId{next}); }
void WriteBatch::PutReservation(const ReservationInfo& resv) {
  ResvPut put{resv.name(), {}};
  resv.SerializeToString(&put.data);
  ops_.emplace_back(std::move(put));
}
void WriteBatch::DeleteReservation(const std::string& name) { ops_.emplace_back(ResvDelete{name}); }

namespace {

template <typename Message, typename Key>
Expected<Message> Parse(const char* kind, const Key& key, const std::string& data) {
  Message m;
  if (!m.ParseFromString(data)) {
    return Internal(fmt::format("state store: {} {} record is corrupt", kind, key));
  }
  return m;
}

}  // namespace

Expected<JobInfo> ParseJobRecord(int64_t id, const std::string& data) {
  return Parse<JobInfo>("job", id, data);
}
Expected<JobScript> ParseScriptRecord(int64_t id, const std::string& data) {
  return Parse<JobScript>("script of job", id, data);
}
Expected<ReservationInfo> ParseReservationRecord(const std::string& name, const std::string& data) {
  return Parse<ReservationInfo>("reservation", name, data);
}

}  // namespace sluice::storage
