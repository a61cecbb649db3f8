#include "storage/pg_lease.h"

#include <pqxx/pqxx>

#include "storage/pg_schema.h"

namespace sluice::storage {

struct PgLease::Connection : PgConnection {
  using PgConnection::PgConnection;
};

PgLease::PgLease(std::unique_ptr<Connection> conn) : conn_(std::move(conn)) {}
PgLease::~PgLease() = default;

Expected<std::unique_ptr<PgLease>> PgLease::Open(const std::string& conn) {
  std::unique_ptr<Connection> c;
  try {
    c = std::make_unique<Connection>(conn);
  } catch (const std::exception& e) {
    return PgError("connect", e);
  }
  RETURN_IF_ERROR(EnsurePgSchema(c->pq));
  return std::unique_ptr<PgLease>(new PgLease(std::move(c)));
}

Expected<std::optional<int64_t>> PgLease::TryAcquire(const std::string& holder,
                                                     const std::string& address, int64_t ttl_ms) {
  try {
    pqxx::work tx(conn_->pq);
    pqxx::result r = tx.exec_params(
        "UPDATE ctld_lease SET holder = $1, address = $2, epoch = epoch + 1, "
        "expires = clock_timestamp() + $3 * interval '1 millisecond' "
        "WHERE id = 1 AND expires < clock_timestamp() RETURNING epoch",
        holder, address, ttl_ms);
    tx.commit();
    if (r.empty()) return std::optional<int64_t>();
    return std::optional<int64_t>(r[0][0].as<int64_t>());
  } catch (const std::exception& e) {
    return PgError("lease", e);
  }
}

Expected<bool> PgLease::Renew(int64_t epoch, int64_t ttl_ms) {
  try {
    pqxx::work tx(conn_->pq);
    pqxx::result r = tx.exec_params(
        "UPDATE ctld_lease SET expires = clock_timestamp() + $2 * interval '1 millisecond' "
        "WHERE id = 1 AND epoch = $1 AND expires >= clock_timestamp() RETURNING epoch",
        epoch, ttl_ms);
    tx.commit();
    return !r.empty();
  } catch (const std::exception& e) {
    return PgError("lease", e);
  }
}

Status PgLease::Release(int64_t epoch) {
  try {
    pqxx::work tx(conn_->pq);
    tx.exec_params("UPDATE ctld_lease SET expires = '-infinity' WHERE id = 1 AND epoch = $1",
                   epoch);
    tx.commit();
    return Status::Ok();
  } catch (const std::exception& e) {
    return PgError("lease", e);
  }
}

Expected<LeaseState> PgLease::Current() {
  try {
    pqxx::work tx(conn_->pq);
    pqxx::result r = tx.exec(
        "SELECT holder, address, epoch, expires >= clock_timestamp() FROM ctld_lease "
        "WHERE id = 1");
    if (r.empty()) return LeaseState{};
    return LeaseState{r[0][0].as<std::string>(), r[0][1].as<std::string>(), r[0][2].as<int64_t>(),
                      r[0][3].as<bool>()};
  } catch (const std::exception& e) {
    return PgError("lease", e);
  }
}

}  // namespace sluice::storage
