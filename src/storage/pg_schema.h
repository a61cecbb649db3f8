// The controller's tables in PostgreSQL (state/pgsql), shared by PgStateStore and PgLease:
// both create them on connect, under an advisory lock so that two controllers starting at
// once do not race on CREATE TABLE. Names start with ctld_ so that the accounting tables
// (acct_*) may live in the same database.
#pragma once

#include <pqxx/pqxx>
#include <string>

#include "common/status.h"

namespace sluice::storage {

// The connection a store or lease owns.
struct PgConnection {
  explicit PgConnection(const std::string& conn) : pq(conn) {}
  pqxx::connection pq;
};

// Creates the tables (and the lease row) when missing.
Status EnsurePgSchema(pqxx::connection& conn);

// Status for a libpqxx exception, naming what failed.
Status PgError(const char* what, const std::exception& e);

}  // namespace sluice::storage
