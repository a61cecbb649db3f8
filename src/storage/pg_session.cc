#include "storage/pg_session.h"

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
)sql";

}  // namespace

Status PgSession::Error(const char* what, const std::exception& e) {
  std::string msg = e.what();
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return Unavailable(fmt::format("state database (pgsql) {} failed: {}", what, msg));
}

Status PgSession::Connect() {
  if (pq_ && pq_->is_open()) return Status::Ok();
  pq_.reset();
  try {
    auto pq = std::make_unique<pqxx::connection>(conn_);
    pqxx::nontransaction settings(*pq);
    settings.exec(fmt::format("SET lock_timeout = {}; SET idle_in_transaction_session_timeout = {}",
                              kPgLockTimeoutMs, kPgIdleTransactionMs));
    settings.commit();
    pqxx::work tx(*pq);
    tx.exec(fmt::format("SELECT pg_advisory_xact_lock({})", kSchemaLockKey));
    tx.exec(kSchema);
    // The lease row, unless it exists (no lock taken on it when it does).
    tx.exec(
        "INSERT INTO ctld_lease (id, holder, address, epoch, expires) "
        "SELECT 1, '', '', 0, '-infinity' WHERE NOT EXISTS (SELECT 1 FROM ctld_lease)");
    tx.commit();
    pq_ = std::move(pq);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Error("connect", e);
  }
}

}  // namespace sluice::storage
