#include "storage/state_dump.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/pg_conn_string.h"
#include "storage/pg_state_store.h"
#include "storage/sqlite_state_store.h"

namespace sluice::storage {

DumpBuilder::DumpBuilder(StateDump* out, std::string source) : out_(out) {
  out_->Clear();
  out_->set_format(kStateDumpFormat);
  out_->set_created(std::time(nullptr));
  out_->set_source(std::move(source));
}

Status DumpBuilder::Job(int64_t id, const std::string& data, bool history) {
  ASSIGN_OR_RETURN(JobInfo job, ParseJobRecord(id, data));
  *(history ? out_->add_history() : out_->add_jobs()) = std::move(job);
  return Status::Ok();
}

Status DumpBuilder::Script(int64_t id, const std::string& data) {
  ASSIGN_OR_RETURN(JobScript script, ParseScriptRecord(id, data));
  StateDump::Script* s = out_->add_scripts();
  s->set_id(id);
  *s->mutable_script() = std::move(script);
  return Status::Ok();
}

Status DumpBuilder::Reservation(const std::string& name, const std::string& data) {
  ASSIGN_OR_RETURN(ReservationInfo resv, ParseReservationRecord(name, data));
  *out_->add_reservations() = std::move(resv);
  return Status::Ok();
}

void DumpBuilder::Node(const NodeStateRecord& n) {
  StateDump::Node* d = out_->add_nodes();
  d->set_name(n.name);
  d->set_drain(n.drain);
  d->set_down(n.down);
  d->set_reason(n.reason);
  d->set_reason_time(n.reason_time);
  d->set_reason_uid(n.reason_uid);
}

void DumpBuilder::Assoc(const AssocRecord& r) {
  StateDump::Assoc* a = out_->add_assoc();
  a->set_kind(r.kind);
  a->set_name(r.name);
  a->set_data(r.data);
}

void DumpBuilder::NextJobId(int64_t next) {
  for (const JobInfo& j : out_->jobs()) next = std::max(next, j.job_id() + 1);
  out_->set_next_job_id(next);
}

std::string DumpSummary(const StateDump& d) {
  return fmt::format(
      "jobs={} history={} scripts={} reservations={} nodes={} assoc={} next_job_id={}",
      d.jobs_size(), d.history_size(), d.scripts_size(), d.reservations_size(), d.nodes_size(),
      d.assoc_size(), d.next_job_id());
}

Status RestoreState(const StateDump& dump, StateStore* target) {
  StateDump there;
  RETURN_IF_ERROR(target->Dump(&there));
  if (there.jobs_size() + there.history_size() + there.scripts_size() + there.reservations_size() +
          there.nodes_size() + there.assoc_size() >
      0) {
    return FailedPrecondition("the state store is not empty (" + DumpSummary(there) +
                              "): restore only into a new one");
  }
  WriteBatch batch;
  for (const JobInfo& j : dump.history()) {  // history goes through the jobs table
    batch.PutJob(j);
    batch.ArchiveJob(j.job_id());
  }
  for (const JobInfo& j : dump.jobs()) batch.PutJob(j);
  for (const StateDump::Script& s : dump.scripts()) batch.PutScript(s.id(), s.script());
  for (const ReservationInfo& r : dump.reservations()) batch.PutReservation(r);
  for (const StateDump::Node& n : dump.nodes()) {
    batch.PutNode({n.name(), n.drain(), n.down(), n.reason(), n.reason_time(), n.reason_uid()});
  }
  batch.SetNextJobId(dump.next_job_id());
  RETURN_IF_ERROR(target->Write(batch));
  std::vector<AssocRecord> assoc;
  for (const StateDump::Assoc& a : dump.assoc()) assoc.push_back({a.kind(), a.name(), a.data()});
  return target->WriteAssocRecords(assoc, {});
}

Status WriteDumpFile(const StateDump& dump, const std::string& path) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Unavailable(fmt::format("cannot write {}: {}", tmp, strerror(errno)));
  const std::string data = dump.SerializeAsString();
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = done == data.size() && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Unavailable(fmt::format("cannot write {}: {}", path, strerror(errno)));
  }
  return Status::Ok();
}

Expected<StateDump> ReadDumpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(fmt::format("cannot read {}: {}", path, strerror(errno)));
  std::stringstream data;
  data << in.rdbuf();
  StateDump dump;
  if (!dump.ParseFromString(data.str()) || dump.format() == 0)
    return InvalidArgument(path + " is not a sluice state dump");
  if (dump.format() > kStateDumpFormat) {
    return InvalidArgument(fmt::format("{} has dump format {}; this sluice reads format {}", path,
                                       dump.format(), kStateDumpFormat));
  }
  return dump;
}

std::string StateConnString(const Config& config) {
  const StorageConfig& s = config.state_storage;
  return PgConnString(s.host, s.port, s.user, s.pass, s.loc.empty() ? "slurm_state_db" : s.loc);
}

Expected<std::unique_ptr<StateStore>> OpenStateStore(const Config& config, bool create) {
  if (config.state_storage.type == "state/pgsql") {
    ASSIGN_OR_RETURN(std::unique_ptr<PgStateStore> pg, PgStateStore::Open(StateConnString(config)));
    return std::unique_ptr<StateStore>(std::move(pg));
  }
  const std::string path = config.state_save_location + "/sluicectld.db";
  if (!create && ::access(path.c_str(), F_OK) != 0)
    return NotFound("no state database at " + path + " (StateSaveLocation)");
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteStateStore> db, SqliteStateStore::Open(path));
  return std::unique_ptr<StateStore>(std::move(db));
}

}  // namespace sluice::storage
