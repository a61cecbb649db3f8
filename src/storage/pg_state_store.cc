#include "storage/pg_state_store.h"

#include <fmt/format.h>

#include <pqxx/pqxx>

#include "storage/pg_session.h"
#include "storage/state_dump.h"

namespace sluice::storage {
namespace {

std::string Bytes(const pqxx::field& f) { return pqxx::binarystring(f).str(); }

void ApplyOp(pqxx::work& tx, const WriteBatch::Op& op) {
  using pqxx::binarystring;
  if (auto* put = std::get_if<WriteBatch::JobPut>(&op)) {
    tx.exec_params(
        "INSERT INTO ctld_jobs (id, state, data) VALUES ($1, $2, $3) "
        "ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, data = EXCLUDED.data",
        put->id, put->state, binarystring(put->data));
  } else if (auto* arch = std::get_if<WriteBatch::JobArchive>(&op)) {
    tx.exec_params(
        "INSERT INTO ctld_job_history (id, state, data) "
        "SELECT id, state, data FROM ctld_jobs WHERE id = $1 "
        "ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, data = EXCLUDED.data",
        arch->id);
    tx.exec_params("DELETE FROM ctld_jobs WHERE id = $1", arch->id);
  } else if (auto* d = std::get_if<WriteBatch::JobDelete>(&op)) {
    tx.exec_params("DELETE FROM ctld_jobs WHERE id = $1", d->id);
  } else if (auto* s = std::get_if<WriteBatch::ScriptPut>(&op)) {
    tx.exec_params(
        "INSERT INTO ctld_job_scripts (id, data) VALUES ($1, $2) "
        "ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data",
        s->id, binarystring(s->data));
  } else if (auto* sd = std::get_if<WriteBatch::ScriptDelete>(&op)) {
    tx.exec_params("DELETE FROM ctld_job_scripts WHERE id = $1", sd->id);
  } else if (auto* n = std::get_if<NodeStateRecord>(&op)) {
    tx.exec_params(
        "INSERT INTO ctld_nodes (name, drain, down, reason, reason_time, reason_uid) "
        "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO UPDATE SET "
        "drain = EXCLUDED.drain, down = EXCLUDED.down, reason = EXCLUDED.reason, "
        "reason_time = EXCLUDED.reason_time, reason_uid = EXCLUDED.reason_uid",
        n->name, n->drain, n->down, n->reason, n->reason_time, static_cast<int64_t>(n->reason_uid));
  } else if (auto* r = std::get_if<WriteBatch::ResvPut>(&op)) {
    tx.exec_params(
        "INSERT INTO ctld_reservations (name, data) VALUES ($1, $2) "
        "ON CONFLICT (name) DO UPDATE SET data = EXCLUDED.data",
        r->name, binarystring(r->data));
  } else if (auto* rd = std::get_if<WriteBatch::ResvDelete>(&op)) {
    tx.exec_params("DELETE FROM ctld_reservations WHERE name = $1", rd->name);
  } else {
    tx.exec_params(
        "INSERT INTO ctld_meta (key, value) VALUES ('next_job_id', $1) "
        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        std::get<WriteBatch::NextId>(op).next);
  }
}

Expected<JobInfo> ParseJobRow(const pqxx::row& r) {
  return ParseJobRecord(r[0].as<int64_t>(), Bytes(r[2]));
}

}  // namespace

PgStateStore::PgStateStore(const std::string& conn) : session_(conn) {}
PgStateStore::~PgStateStore() = default;

Expected<std::unique_ptr<PgStateStore>> PgStateStore::Open(const std::string& conn) {
  std::unique_ptr<PgStateStore> store(new PgStateStore(conn));
  RETURN_IF_ERROR(store->session_.Connect());
  return store;
}

template <typename Fn>
Status PgStateStore::Transaction(Fn apply) {
  return session_.Run("write", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    if (epoch_ != 0) {
      pqxx::result lease = tx.exec("SELECT epoch FROM ctld_lease WHERE id = 1 FOR SHARE");
      int64_t now = lease.empty() ? 0 : lease[0][0].as<int64_t>();
      if (now != epoch_) {
        return FailedPrecondition(fmt::format(
            "fenced: the controller lease moved to epoch {} (this controller holds epoch {}); "
            "it no longer leads and writes nothing",
            now, epoch_));
      }
    }
    apply(tx);
    tx.commit();
    return Status::Ok();
  });
}

Expected<LoadedState> PgStateStore::LoadAll() {
  LoadedState out;
  RETURN_IF_ERROR(session_.Run("load", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    for (const auto& r : tx.exec("SELECT id, state, data FROM ctld_jobs ORDER BY id")) {
      ASSIGN_OR_RETURN(JobInfo job, ParseJobRow(r));
      out.jobs.push_back(std::move(job));
    }
    for (const auto& r :
         tx.exec("SELECT name, drain, down, reason, reason_time, reason_uid FROM ctld_nodes "
                 "ORDER BY name COLLATE \"C\"")) {
      out.nodes.push_back({r[0].as<std::string>(), r[1].as<bool>(), r[2].as<bool>(),
                           r[3].as<std::string>(), r[4].as<int64_t>(),
                           static_cast<uint32_t>(r[5].as<int64_t>())});
    }
    pqxx::result meta = tx.exec("SELECT value FROM ctld_meta WHERE key = 'next_job_id'");
    if (!meta.empty()) out.next_job_id = meta[0][0].as<int64_t>();
    for (const auto& r :
         tx.exec("SELECT name, data FROM ctld_reservations ORDER BY name COLLATE \"C\"")) {
      ASSIGN_OR_RETURN(ReservationInfo resv,
                       ParseReservationRecord(r[0].as<std::string>(), Bytes(r[1])));
      out.reservations.push_back(std::move(resv));
    }
    return Status::Ok();
  }));
  // Never hand out an id that is already in use, even if meta lags behind.
  for (const auto& j : out.jobs) out.next_job_id = std::max(out.next_job_id, j.job_id() + 1);
  return out;
}

Status PgStateStore::Write(const WriteBatch& batch) {
  if (batch.empty()) return Status::Ok();
  return Transaction([&](pqxx::work& tx) {
    for (const auto& op : batch.ops()) ApplyOp(tx, op);
  });
}

Expected<std::optional<JobInfo>> PgStateStore::LoadHistoryJob(int64_t job_id) {
  std::optional<JobInfo> out;
  RETURN_IF_ERROR(session_.Run("load", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    pqxx::result r =
        tx.exec_params("SELECT id, state, data FROM ctld_job_history WHERE id = $1", job_id);
    if (r.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(out, ParseJobRow(r[0]));
    return Status::Ok();
  }));
  return out;
}

Expected<std::optional<JobScript>> PgStateStore::LoadScript(int64_t id) {
  std::optional<JobScript> out;
  RETURN_IF_ERROR(session_.Run("load", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    pqxx::result r = tx.exec_params("SELECT data FROM ctld_job_scripts WHERE id = $1", id);
    if (r.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(out, ParseScriptRecord(id, Bytes(r[0][0])));
    return Status::Ok();
  }));
  return out;
}

Expected<std::vector<AssocRecord>> PgStateStore::LoadAssocRecords() {
  std::vector<AssocRecord> out;
  RETURN_IF_ERROR(session_.Run("load", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    for (const auto& r : tx.exec("SELECT kind, name, data FROM ctld_assoc_records "
                                 "ORDER BY kind COLLATE \"C\", name COLLATE \"C\"")) {
      out.push_back({r[0].as<std::string>(), r[1].as<std::string>(), Bytes(r[2])});
    }
    return Status::Ok();
  }));
  return out;
}

Status PgStateStore::WriteAssocRecords(const std::vector<AssocRecord>& puts,
                                       const std::vector<AssocRecord>& erase) {
  if (puts.empty() && erase.empty()) return Status::Ok();
  return Transaction([&](pqxx::work& tx) {
    for (const auto& r : puts) {
      tx.exec_params(
          "INSERT INTO ctld_assoc_records (kind, name, data) VALUES ($1, $2, $3) "
          "ON CONFLICT (kind, name) DO UPDATE SET data = EXCLUDED.data",
          r.kind, r.name, pqxx::binarystring(r.data));
    }
    for (const auto& r : erase) {
      tx.exec_params("DELETE FROM ctld_assoc_records WHERE kind = $1 AND name = $2", r.kind,
                     r.name);
    }
  });
}

Status PgStateStore::Dump(StateDump* out) {
  return session_.Run("dump", [&](pqxx::connection& pq) {
    // One snapshot for every table, as pg_dump takes it.
    pqxx::transaction<pqxx::isolation_level::repeatable_read, pqxx::readwrite_policy::read_only> tx(
        pq);
    DumpBuilder b(out, std::string("state/pgsql ") + pq.dbname());
    for (const char* table : {"ctld_jobs", "ctld_job_history"}) {
      for (const auto& r : tx.exec(fmt::format("SELECT id, data FROM {} ORDER BY id", table))) {
        RETURN_IF_ERROR(
            b.Job(r[0].as<int64_t>(), Bytes(r[1]), std::string(table) == "ctld_job_history"));
      }
    }
    for (const auto& r : tx.exec("SELECT id, data FROM ctld_job_scripts ORDER BY id"))
      RETURN_IF_ERROR(b.Script(r[0].as<int64_t>(), Bytes(r[1])));
    for (const auto& r :
         tx.exec("SELECT name, data FROM ctld_reservations ORDER BY name COLLATE \"C\""))
      RETURN_IF_ERROR(b.Reservation(r[0].as<std::string>(), Bytes(r[1])));
    for (const auto& r :
         tx.exec("SELECT name, drain, down, reason, reason_time, reason_uid FROM ctld_nodes "
                 "ORDER BY name COLLATE \"C\"")) {
      b.Node({r[0].as<std::string>(), r[1].as<bool>(), r[2].as<bool>(), r[3].as<std::string>(),
              r[4].as<int64_t>(), static_cast<uint32_t>(r[5].as<int64_t>())});
    }
    int64_t next = 1;
    pqxx::result meta = tx.exec("SELECT value FROM ctld_meta WHERE key = 'next_job_id'");
    if (!meta.empty()) next = meta[0][0].as<int64_t>();
    b.NextJobId(next);
    for (const auto& r : tx.exec("SELECT kind, name, data FROM ctld_assoc_records "
                                 "ORDER BY kind COLLATE \"C\", name COLLATE \"C\"")) {
      b.Assoc({r[0].as<std::string>(), r[1].as<std::string>(), Bytes(r[2])});
    }
    return Status::Ok();
  });
}

}  // namespace sluice::storage
