// PgTestServer: a throwaway PostgreSQL 15 server for tests (store tests, the
// controller's pgsql integration test). Start() runs initdb + postgres from
// /usr/lib/postgresql/15/bin in a fresh temp dir, listening only on a unix socket in
// that dir (no TCP port to clash); as root it runs them as the `postgres` system user
// (postgres refuses root). Stop() (and the destructor) shut it down and remove the dir.
// Start() errors say why (binaries absent, user missing, server did not come up), so a
// test can GTEST_SKIP with that message.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "acct/acct_store.h"
#include "common/status.h"

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
  const std::string& socket_dir() const { return sock_dir_; }
  // The sluice.conf lines that keep the controllers' state here (StateStorage*).
  std::vector<std::string> StateStorageLines() const;
  // A libpq connection string for the server's database.
  std::string conn_string() const;
  int port() const { return port_; }
  // Drops the accounting tables (a clean database for the next test).
  Status Reset();
  // Runs one SQL statement (tests that set up an older schema).
  Status ExecSql(const std::string& sql);

 private:
  std::string dir_;
  std::string sock_dir_;
  int port_ = 5432;
  pid_t pid_ = -1;
};

}  // namespace sluice::acct
