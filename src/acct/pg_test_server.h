// PgTestServer: a throwaway PostgreSQL 15 server for tests (store tests, the
// controller's pgsql integration tests): a storage::PgServer in a fresh temp dir.
// Stop() (and the destructor) shut it down and remove the dir. Start() errors say why
// (binaries absent, user missing, server did not come up), so a test can GTEST_SKIP with
// that message.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "acct/acct_store.h"
#include "common/status.h"
#include "storage/pg_server.h"

namespace sluice::acct {

class PgTestServer {
 public:
  PgTestServer() = default;
  ~PgTestServer() { Stop(); }
  PgTestServer(const PgTestServer&) = delete;
  PgTestServer& operator=(const PgTestServer&) = delete;

  Status Start();
  void Stop();
  // Connection settings for AcctConfig (type pgsql, host = the socket dir).
  AcctConfig Config() const;
  std::string socket_dir() const { return server_->socket_dir(); }
  // The sluice.conf lines that keep the controllers' state here (StateStorage*).
  std::vector<std::string> StateStorageLines() const { return server_->StateStorageLines(); }
  // A libpq connection string for the server's database.
  std::string conn_string() const { return server_->conn_string(); }
  // Drops the accounting tables (a clean database for the next test).
  Status Reset();
  // Runs one SQL statement (tests that set up an older schema).
  Status ExecSql(const std::string& sql);

 private:
  std::unique_ptr<storage::PgServer> server_;
};

}  // namespace sluice::acct
