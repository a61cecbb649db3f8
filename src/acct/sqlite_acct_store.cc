// SQLite backend of AcctStore (accounting_storage/sqlite): WAL, synchronous=NORMAL
// (accounting rows are re-synced from the state store after a crash).
#include <fmt/format.h>
#include <sqlite3.h>

#include <map>

#include "acct/acct_store.h"

namespace sluice::acct {
namespace {

class SqliteAcctStore final : public AcctStore {
 public:
  explicit SqliteAcctStore(sqlite3* db) : db_(db) {}
  ~SqliteAcctStore() override {
    for (auto& [sql, st] : cached_) sqlite3_finalize(st);
    sqlite3_close(db_);
  }
  Status Init() {
    RETURN_IF_ERROR(Exec("PRAGMA journal_mode=WAL", {}));
    RETURN_IF_ERROR(Exec("PRAGMA synchronous=NORMAL", {}));
    sqlite3_busy_timeout(db_, 10000);
    return CreateSchema();
  }

 protected:
  // Statements with parameters (the per-record upserts) are prepared once and reused.
  Status Exec(const std::string& sql, const Row& params) override {
    sqlite3_stmt* st = nullptr;
    bool reuse = !params.empty();
    if (auto it = cached_.find(sql); reuse && it != cached_.end()) {
      st = it->second;
      RETURN_IF_ERROR(Bind(st, params));
    } else {
      RETURN_IF_ERROR(Prepare(sql, params, &st));
      if (reuse) cached_[sql] = st;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
    if (reuse) {
      sqlite3_reset(st);
      sqlite3_clear_bindings(st);
    } else {
      sqlite3_finalize(st);
    }
    if (rc != SQLITE_DONE) return Error(sql);
    return Status::Ok();
  }

  Expected<std::vector<Row>> Select(const std::string& sql, const std::string& kinds,
                                    const Row& params = {}) override {
    sqlite3_stmt* st = nullptr;
    RETURN_IF_ERROR(Prepare(sql, params, &st));
    std::vector<Row> rows;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      Row r;
      for (size_t i = 0; i < kinds.size(); ++i) {
        if (kinds[i] == 'i') {
          r.emplace_back(int64_t{sqlite3_column_int64(st, i)});
        } else {
          const unsigned char* t = sqlite3_column_text(st, i);
          r.emplace_back(std::string(t ? reinterpret_cast<const char*>(t) : ""));
        }
      }
      rows.push_back(std::move(r));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return Error(sql);
    return rows;
  }

  Expected<bool> HasColumn(const std::string& table, const std::string& column) override {
    ASSIGN_OR_RETURN(auto rows, Select(fmt::format("SELECT COUNT(*) FROM pragma_table_info('{}') "
                                                   "WHERE name = '{}'",
                                                   table, column),
                                       "i"));
    return !rows.empty() && std::get<int64_t>(rows[0][0]) > 0;
  }

 private:
  Status Error(const std::string& what) {
    return Unavailable("accounting database (sqlite): " + std::string(sqlite3_errmsg(db_)) +
                       " in: " + what.substr(0, 60));
  }
  Status Prepare(const std::string& sql, const Row& params, sqlite3_stmt** st) {
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, st, nullptr) != SQLITE_OK) return Error(sql);
    return Bind(*st, params);
  }
  Status Bind(sqlite3_stmt* st, const Row& params) {
    for (size_t i = 0; i < params.size(); ++i) {
      std::string name = "$" + std::to_string(i + 1);
      int idx = sqlite3_bind_parameter_index(st, name.c_str());
      if (idx == 0) continue;
      if (const auto* v = std::get_if<int64_t>(&params[i])) {
        sqlite3_bind_int64(st, idx, *v);
      } else {
        const auto& s = std::get<std::string>(params[i]);
        sqlite3_bind_text(st, idx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      }
    }
    return Status::Ok();
  }
  sqlite3* db_;
  std::map<std::string, sqlite3_stmt*> cached_;
};

}  // namespace

Expected<std::unique_ptr<AcctStore>> OpenSqliteAcctStore(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Unavailable("cannot open accounting database " + path + ": " + msg);
  }
  auto store = std::make_unique<SqliteAcctStore>(db);
  RETURN_IF_ERROR(store->Init());
  return std::unique_ptr<AcctStore>(std::move(store));
}

}  // namespace sluice::acct
