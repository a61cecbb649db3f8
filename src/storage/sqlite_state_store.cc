#include "storage/sqlite_state_store.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "storage/state_dump.h"

namespace sluice::storage {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,
                                 data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state);
CREATE TABLE IF NOT EXISTS job_history (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,
                                        data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (name TEXT PRIMARY KEY, drain INTEGER NOT NULL,
                                  down INTEGER NOT NULL, reason TEXT NOT NULL,
                                  reason_time INTEGER NOT NULL, reason_uid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS reservations (name TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS job_scripts (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
)sql";

// RAII prepared statement.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindBlob(int i, const std::string& v) {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  int Step() { return sqlite3_step(stmt_); }
  Status Run() {
    if (!ok()) return Error("prepare");
    int rc = Step();
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return Error("step");
    return Status::Ok();
  }
  Status Error(const char* what) const {
    return Internal(fmt::format("state store {} failed: {}", what, sqlite3_errmsg(db_)));
  }
  int64_t Int(int col) { return sqlite3_column_int64(stmt_, col); }
  std::string Text(int col) {
    auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, sqlite3_column_bytes(stmt_, col)) : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

Expected<JobInfo> ParseJob(Stmt& s) { return ParseJobRecord(s.Int(0), s.Text(2)); }

}  // namespace

Expected<std::unique_ptr<SqliteStateStore>> SqliteStateStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Unavailable(fmt::format("cannot open state database {}: {}", path, msg));
  }
  std::unique_ptr<SqliteStateStore> store(new SqliteStateStore(db));
  sqlite3_busy_timeout(db, 5000);
  RETURN_IF_ERROR(store->Exec("PRAGMA journal_mode=WAL"));
  RETURN_IF_ERROR(store->Exec("PRAGMA synchronous=FULL"));
  RETURN_IF_ERROR(store->Exec(kSchema));
  return store;
}

SqliteStateStore::~SqliteStateStore() { sqlite3_close(db_); }

Status SqliteStateStore::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    Status st = Internal(fmt::format("state store: {}", err ? err : "error"));
    sqlite3_free(err);
    return st;
  }
  return Status::Ok();
}

Expected<LoadedState> SqliteStateStore::LoadAll() {
  LoadedState out;
  Stmt jobs(db_, "SELECT id, state, data FROM jobs ORDER BY id");
  if (!jobs.ok()) return jobs.Error("prepare");
  while (jobs.Step() == SQLITE_ROW) {
    ASSIGN_OR_RETURN(JobInfo job, ParseJob(jobs));
    out.jobs.push_back(std::move(job));
  }
  RETURN_IF_ERROR(LoadAllButJobs(&out));
  // Never hand out an id that is already in use, even if meta lags behind.
  for (const auto& j : out.jobs) out.next_job_id = std::max(out.next_job_id, j.job_id() + 1);
  return out;
}

Status SqliteStateStore::LoadAllButJobs(LoadedState* out) {
  Stmt nodes(db_,
             "SELECT name, drain, down, reason, reason_time, reason_uid FROM nodes "
             "ORDER BY name");
  if (!nodes.ok()) return nodes.Error("prepare");
  while (nodes.Step() == SQLITE_ROW) {
    out->nodes.push_back({nodes.Text(0), nodes.Int(1) != 0, nodes.Int(2) != 0, nodes.Text(3),
                          nodes.Int(4), static_cast<uint32_t>(nodes.Int(5))});
  }
  Stmt meta(db_, "SELECT value FROM meta WHERE key = 'next_job_id'");
  if (!meta.ok()) return meta.Error("prepare");
  if (meta.Step() == SQLITE_ROW) out->next_job_id = meta.Int(0);
  Stmt resvs(db_, "SELECT name, name, data FROM reservations ORDER BY name");
  if (!resvs.ok()) return resvs.Error("prepare");
  while (resvs.Step() == SQLITE_ROW) {
    ASSIGN_OR_RETURN(ReservationInfo r, ParseReservationRecord(resvs.Text(0), resvs.Text(2)));
    out->reservations.push_back(std::move(r));
  }
  return Status::Ok();
}

Expected<std::optional<JobInfo>> SqliteStateStore::LoadHistoryJob(int64_t job_id) {
  Stmt s(db_, "SELECT id, state, data FROM job_history WHERE id = ?");
  if (!s.ok()) return s.Error("prepare");
  s.Bind(1, job_id);
  if (s.Step() != SQLITE_ROW) return std::optional<JobInfo>();
  ASSIGN_OR_RETURN(JobInfo job, ParseJob(s));
  return std::optional<JobInfo>(std::move(job));
}

Expected<std::optional<JobScript>> SqliteStateStore::LoadScript(int64_t id) {
  Stmt s(db_, "SELECT data FROM job_scripts WHERE id = ?");
  if (!s.ok()) return s.Error("prepare");
  s.Bind(1, id);
  if (s.Step() != SQLITE_ROW) return std::optional<JobScript>();
  ASSIGN_OR_RETURN(JobScript script, ParseScriptRecord(id, s.Text(0)));
  return std::optional<JobScript>(std::move(script));
}

Status SqliteStateStore::ApplyOp(const WriteBatch::Op& op) {
  if (auto* put = std::get_if<WriteBatch::JobPut>(&op)) {
    Stmt s(db_, "INSERT OR REPLACE INTO jobs (id, state, data) VALUES (?, ?, ?)");
    s.Bind(1, put->id);
    s.Bind(2, put->state);
    s.BindBlob(3, put->data);
    return s.Run();
  }
  if (auto* arch = std::get_if<WriteBatch::JobArchive>(&op)) {
    Stmt copy(db_,
              "INSERT OR REPLACE INTO job_history (id, state, data) "
              "SELECT id, state, data FROM jobs WHERE id = ?");
    copy.Bind(1, arch->id);
    RETURN_IF_ERROR(copy.Run());
    Stmt del(db_, "DELETE FROM jobs WHERE id = ?");
    del.Bind(1, arch->id);
    return del.Run();
  }
  if (auto* d = std::get_if<WriteBatch::JobDelete>(&op)) {
    Stmt del(db_, "DELETE FROM jobs WHERE id = ?");
    del.Bind(1, d->id);
    return del.Run();
  }
  if (auto* put = std::get_if<WriteBatch::ScriptPut>(&op)) {
    Stmt s(db_, "INSERT OR REPLACE INTO job_scripts (id, data) VALUES (?, ?)");
    s.Bind(1, put->id);
    s.BindBlob(2, put->data);
    return s.Run();
  }
  if (auto* d = std::get_if<WriteBatch::ScriptDelete>(&op)) {
    Stmt del(db_, "DELETE FROM job_scripts WHERE id = ?");
    del.Bind(1, d->id);
    return del.Run();
  }
  if (auto* n = std::get_if<NodeStateRecord>(&op)) {
    Stmt s(db_,
           "INSERT OR REPLACE INTO nodes (name, drain, down, reason, reason_time, reason_uid)"
           " VALUES (?, ?, ?, ?, ?, ?)");
    s.Bind(1, n->name);
    s.Bind(2, n->drain ? 1 : 0);
    s.Bind(3, n->down ? 1 : 0);
    s.Bind(4, n->reason);
    s.Bind(5, n->reason_time);
    s.Bind(6, static_cast<int64_t>(n->reason_uid));
    return s.Run();
  }
  if (auto* r = std::get_if<WriteBatch::ResvPut>(&op)) {
    Stmt s(db_, "INSERT OR REPLACE INTO reservations (name, data) VALUES (?, ?)");
    s.Bind(1, r->name);
    s.BindBlob(2, r->data);
    return s.Run();
  }
  if (auto* r = std::get_if<WriteBatch::ResvDelete>(&op)) {
    Stmt s(db_, "DELETE FROM reservations WHERE name = ?");
    s.Bind(1, r->name);
    return s.Run();
  }
  const auto& next = std::get<WriteBatch::NextId>(op);
  Stmt s(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES ('next_job_id', ?)");
  s.Bind(1, next.next);
  return s.Run();
}

Status SqliteStateStore::Write(const WriteBatch& batch) {
  if (batch.empty()) return Status::Ok();
  RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  for (const auto& op : batch.ops()) {
    Status st = ApplyOp(op);
    if (!st.ok()) {
      Exec("ROLLBACK");
      return st;
    }
  }
  return Exec("COMMIT");
}

Status SqliteStateStore::Dump(StateDump* out) {
  // One read transaction: in WAL mode a snapshot that the controller's commits do not move.
  RETURN_IF_ERROR(Exec("BEGIN"));
  Status st = [&]() -> Status {
    DumpBuilder b(out, "state/sqlite " + std::string(sqlite3_db_filename(db_, "main")));
    for (const char* table : {"jobs", "job_history"}) {
      Stmt s(db_, fmt::format("SELECT id, data FROM {} ORDER BY id", table).c_str());
      if (!s.ok()) return s.Error("prepare");
      while (s.Step() == SQLITE_ROW) {
        RETURN_IF_ERROR(b.Job(s.Int(0), s.Text(1), std::string(table) == "job_history"));
      }
    }
    Stmt scripts(db_, "SELECT id, data FROM job_scripts ORDER BY id");
    if (!scripts.ok()) return scripts.Error("prepare");
    while (scripts.Step() == SQLITE_ROW) RETURN_IF_ERROR(b.Script(scripts.Int(0), scripts.Text(1)));
    LoadedState state;  // all but the jobs, which the dump has just read
    RETURN_IF_ERROR(LoadAllButJobs(&state));
    for (const ReservationInfo& r : state.reservations) *out->add_reservations() = r;
    for (const NodeStateRecord& n : state.nodes) b.Node(n);
    b.NextJobId(state.next_job_id);
    ASSIGN_OR_RETURN(std::vector<AssocRecord> assoc, LoadAssocRecords());
    for (const AssocRecord& r : assoc) b.Assoc(r);
    return Status::Ok();
  }();
  Exec("COMMIT");
  return st;
}

}  // namespace sluice::storage
