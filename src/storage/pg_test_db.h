// Test support: one throwaway PostgreSQL server (acct/pg_test_server.h) for every test of
// this binary that needs one, started on first use; and the reset between tests.
#pragma once

#include <string>

#include "acct/pg_test_server.h"
#include "common/status.h"

namespace sluice::storage {

// The server, or nullptr (and `why`) when it cannot start here.
inline acct::PgTestServer* SharedPgServer(std::string* why) {
  static acct::PgTestServer server;
  static Status started = server.Start();
  if (!started.ok()) {
    *why = started.message();
    return nullptr;
  }
  return &server;
}

// Drops the controller's tables: the next store or lease starts from an empty database.
inline Status ResetControllerTables(acct::PgTestServer* server) {
  return server->ExecSql(
      "DROP TABLE IF EXISTS ctld_jobs, ctld_job_history, ctld_meta, ctld_nodes, "
      "ctld_reservations, ctld_job_scripts, ctld_assoc_records, ctld_lease");
}

}  // namespace sluice::storage
