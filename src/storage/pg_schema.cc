#include "storage/pg_schema.h"

#include <fmt/format.h>

namespace sluice::storage {
namespace {

// Any number, the same in every controller: serialises schema creation.
constexpr int64_t kSchemaLockKey = 0x5107ced;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS ctld_jobs (id BIGINT PRIMARY KEY, state INTEGER NOT NULL,
                                      data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS ctld_job_history (id BIGINT PRIMARY KEY, state INTEGER NOT NULL,
                                             data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS ctld_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ctld_nodes (name TEXT PRIMARY KEY, drain BOOLEAN NOT NULL,
                                       down BOOLEAN NOT NULL, reason TEXT NOT NULL,
                                       reason_time BIGINT NOT NULL, reason_uid BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ctld_reservations (name TEXT PRIMARY KEY, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS ctld_job_scripts (id BIGINT PRIMARY KEY, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS ctld_assoc_records (kind TEXT NOT NULL, name TEXT NOT NULL,
                                               data BYTEA NOT NULL, PRIMARY KEY (kind, name));
CREATE TABLE IF NOT EXISTS ctld_lease (id INTEGER PRIMARY KEY CHECK (id = 1),
                                       holder TEXT NOT NULL, address TEXT NOT NULL,
                                       epoch BIGINT NOT NULL, expires TIMESTAMPTZ NOT NULL);
INSERT INTO ctld_lease (id, holder, address, epoch, expires)
  VALUES (1, '', '', 0, '-infinity') ON CONFLICT (id) DO NOTHING;
)sql";

}  // namespace

Status EnsurePgSchema(pqxx::connection& conn) {
  try {
    pqxx::work tx(conn);
    tx.exec(fmt::format("SELECT pg_advisory_xact_lock({})", kSchemaLockKey));
    tx.exec(kSchema);
    tx.commit();
    return Status::Ok();
  } catch (const std::exception& e) {
    return PgError("schema", e);
  }
}

Status PgError(const char* what, const std::exception& e) {
  std::string msg = e.what();
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return Unavailable(fmt::format("state database (pgsql) {} failed: {}", what, msg));
}

}  // namespace sluice::storage
