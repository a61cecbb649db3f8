// SqliteStateStore's association records: table assoc_records(kind, name, data), created on
// first use. Kinds are the controller's (cluster, account, user, qos, usage).
#include <sqlite3.h>

#include <fmt/format.h>

#include "storage/sqlite_state_store.h"

namespace sluice::storage {
namespace {

constexpr const char* kAssocSchema =
    "CREATE TABLE IF NOT EXISTS assoc_records (kind TEXT NOT NULL, name TEXT NOT NULL, "
    "data BLOB NOT NULL, PRIMARY KEY (kind, name))";

Status SqlError(sqlite3* db, const char* what) {
  return Internal(fmt::format("state store {} failed: {}", what, sqlite3_errmsg(db)));
}

std::string Column(sqlite3_stmt* s, int col) {
  auto* p = static_cast<const char*>(sqlite3_column_blob(s, col));
  return p ? std::string(p, sqlite3_column_bytes(s, col)) : std::string();
}

void BindText(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

Status RunOne(sqlite3* db, const char* sql, const AssocRecord& r, bool with_data) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) return SqlError(db, "prepare");
  BindText(s, 1, r.kind);
  BindText(s, 2, r.name);
  if (with_data)
    sqlite3_bind_blob(s, 3, r.data.data(), static_cast<int>(r.data.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  return rc == SQLITE_DONE ? Status::Ok() : SqlError(db, "step");
}

}  // namespace

Expected<std::vector<AssocRecord>> SqliteStateStore::LoadAssocRecords() {
  RETURN_IF_ERROR(Exec(kAssocSchema));
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT kind, name, data FROM assoc_records ORDER BY kind, name", -1,
                         &s, nullptr) != SQLITE_OK) {
    return SqlError(db_, "prepare");
  }
  std::vector<AssocRecord> out;
  while (sqlite3_step(s) == SQLITE_ROW) out.push_back({Column(s, 0), Column(s, 1), Column(s, 2)});
  sqlite3_finalize(s);
  return out;
}

Status SqliteStateStore::WriteAssocRecords(const std::vector<AssocRecord>& puts,
                                           const std::vector<AssocRecord>& erase) {
  if (puts.empty() && erase.empty()) return Status::Ok();
  RETURN_IF_ERROR(Exec(kAssocSchema));
  RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Status st;
  for (const auto& r : puts) {
    if (!st.ok()) break;
    st = RunOne(db_, "INSERT OR REPLACE INTO assoc_records (kind, name, data) VALUES (?, ?, ?)", r,
                true);
  }
  for (const auto& r : erase) {
    if (!st.ok()) break;
    st = RunOne(db_, "DELETE FROM assoc_records WHERE kind = ? AND name = ?", r, false);
  }
  if (!st.ok()) {
    Exec("ROLLBACK");
    return st;
  }
  return Exec("COMMIT");
}

}  // namespace sluice::storage
