#include "storage/pg_lease.h"

#include <pqxx/pqxx>

#include "storage/pg_session.h"

namespace sluice::storage {

PgLease::PgLease(const std::string& conn) : session_(conn) {}
PgLease::~PgLease() = default;

Expected<std::unique_ptr<PgLease>> PgLease::Open(const std::string& conn) {
  std::unique_ptr<PgLease> lease(new PgLease(conn));
  RETURN_IF_ERROR(lease->session_.Connect());
  return lease;
}

Expected<std::optional<int64_t>> PgLease::TryAcquire(const std::string& holder,
                                                     const std::string& address, int64_t ttl_ms) {
  std::optional<int64_t> epoch;
  RETURN_IF_ERROR(session_.Run("lease", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    pqxx::result r = tx.exec_params(
        "UPDATE ctld_lease SET holder = $1, address = $2, epoch = epoch + 1, "
        "expires = clock_timestamp() + $3 * interval '1 millisecond' "
        "WHERE id = 1 AND expires < clock_timestamp() RETURNING epoch",
        holder, address, ttl_ms);
    tx.commit();
    if (!r.empty()) epoch = r[0][0].as<int64_t>();
    return Status::Ok();
  }));
  return epoch;
}

Expected<bool> PgLease::Renew(int64_t epoch, int64_t ttl_ms) {
  bool renewed = false;
  RETURN_IF_ERROR(session_.Run("lease", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    pqxx::result r = tx.exec_params(
        "UPDATE ctld_lease SET expires = clock_timestamp() + $2 * interval '1 millisecond' "
        "WHERE id = 1 AND epoch = $1 AND expires >= clock_timestamp() RETURNING epoch",
        epoch, ttl_ms);
    tx.commit();
    renewed = !r.empty();
    return Status::Ok();
  }));
  return renewed;
}

Status PgLease::Release(int64_t epoch) {
  return session_.Run("lease", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    tx.exec_params("UPDATE ctld_lease SET expires = '-infinity' WHERE id = 1 AND epoch = $1",
                   epoch);
    tx.commit();
    return Status::Ok();
  });
}

Expected<LeaseState> PgLease::Current() {
  LeaseState out;
  RETURN_IF_ERROR(session_.Run("lease", [&](pqxx::connection& pq) {
    pqxx::work tx(pq);
    pqxx::result r = tx.exec(
        "SELECT holder, address, epoch, expires >= clock_timestamp() FROM ctld_lease "
        "WHERE id = 1");
    if (!r.empty()) {
      out = {r[0][0].as<std::string>(), r[0][1].as<std::string>(), r[0][2].as<int64_t>(),
             r[0][3].as<bool>()};
    }
    return Status::Ok();
  }));
  return out;
}

}  // namespace sluice::storage
