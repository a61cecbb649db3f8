// AcctStore: the accounting database (Slurm's slurmdbd role). Two backends share one
// schema (acct_schema.h): SQLite (accounting_storage/sqlite, a file of its own) and
// PostgreSQL through libpqxx (accounting_storage/pgsql). Every write is an idempotent
// upsert keyed by (job_id, attempt) / (job_id, attempt, step_id), so replaying records
// (controller restart re-sync) is harmless. Apply() writes a batch in ONE transaction.
// Not thread-safe: one thread per AcctStore (the writer and the query side each open
// their own).
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "acct/acct_record.h"
#include "common/status.h"

namespace sluice::acct {

using AcctOp = std::variant<AcctJobRecord, AcctStepRecord, AcctCloseAttempts, NodeEventSet>;

struct AcctConfig {
  std::string type = "accounting_storage/sqlite";  // or accounting_storage/pgsql
  std::string sqlite_path;                         // sqlite: the database file
  std::string host;                                // pgsql: host name or socket dir
  int port = 0;                                    // 0 = libpq default
  std::string user;
  std::string pass;
  std::string db;  // AccountingStorageLoc
};

class AcctStore {
 public:
  virtual ~AcctStore() = default;
  Status Apply(const std::vector<AcctOp>& ops);
  Expected<AcctData> Query(const AcctWindow& window);
  // Node events overlapping [start, end) (0 = unbounded), ordered by (start_time, node);
  // open events (end_time 0) overlap every window that ends after their start.
  Expected<std::vector<NodeEventRecord>> QueryNodeEvents(int64_t start, int64_t end);

 protected:
  using Value = std::variant<int64_t, std::string>;
  using Row = std::vector<Value>;
  // Backend primitives. Exec runs `sql` with $1..$N bound to `params` (in order).
  virtual Status Exec(const std::string& sql, const Row& params) = 0;
  // Runs a SELECT whose columns have the kinds in `kinds` ('i' integer, 't' text), with
  // $1..$N bound to `params`.
  virtual Expected<std::vector<Row>> Select(const std::string& sql, const std::string& kinds,
                                            const Row& params = {}) = 0;
  // Whether `table` (which exists) has `column`: how CreateSchema migrates older databases.
  virtual Expected<bool> HasColumn(const std::string& table, const std::string& column) = 0;
  // Creates the tables, adding columns an older database lacks.
  Status CreateSchema();
  Status CreateNodeEventSchema();  // node_events.cc

 private:
  Status ApplyOne(const AcctOp& op);
  Status ApplyNodeEvent(const NodeEventSet& op);  // node_events.cc
};

// Opens the configured backend (creating the schema); unknown type -> InvalidArgument.
Expected<std::unique_ptr<AcctStore>> OpenAcctStore(const AcctConfig& config);
Expected<std::unique_ptr<AcctStore>> OpenSqliteAcctStore(const std::string& path);
Expected<std::unique_ptr<AcctStore>> OpenPgsqlAcctStore(const AcctConfig& config);

}  // namespace sluice::acct
