// PgServer: a private PostgreSQL 15 server (Debian's binaries in /usr/lib/postgresql/15/bin)
// whose data, log and unix socket all live in one directory; it listens on no TCP port
// (unless given an address on an isolated network: below), so servers never clash. As root it runs as the `postgres` system user (postgres refuses
// root), which must be able to reach the directory: callers use a short directory under
// /tmp (the socket's path must stay under 108 bytes).
// Used by the tests (a throwaway server) and by `sluice up --ha N` (the controllers' shared
// state; `sluice down` stops it, its data stays for the next `up`).
//   PgServer pg("/tmp/sluice-pg-x1");
//   RETURN_IF_ERROR(pg.Start());   // initdb on first use; waits for connections
//   pqxx::connection c(pg.conn_string());
//   pg.Stop();
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::storage {

class PgServer {
 public:
  static constexpr int kPort = 5432;  // names the socket file only (no TCP)
  static constexpr char kUser[] = "sluice";
  static constexpr char kDatabase[] = "postgres";

  explicit PgServer(std::string dir) : dir_(std::move(dir)) {}
  // Also listening on TCP at `tcp_addr` (an IPv4 address of this host), trusting clients of
  // its /24: for controllers in network namespaces of their own (`sluice up --isolated
  // --ha`), which reach it over the isolated network's bridge, so that cutting a
  // controller's link cuts it from the database too (a lost machine).
  PgServer(std::string dir, std::string tcp_addr)
      : dir_(std::move(dir)), tcp_addr_(std::move(tcp_addr)) {}

  // Creates the cluster on first use (initdb), starts the server unless it already runs,
  // and returns once it accepts connections. Errors say why (binaries absent, no postgres
  // user, initdb failed, the server's log tail).
  Status Start() const;
  // Stops the server running in the directory (fast shutdown, SIGKILL after 15 s),
  // whoever started it: the pid comes from its postmaster.pid.
  void Stop() const;
  bool Running() const;

  const std::string& dir() const { return dir_; }
  std::string socket_dir() const { return dir_ + "/sock"; }
  std::string conn_string() const;
  // The sluice.conf lines that keep the controllers' state in this server (StateStorage*):
  // through the socket, or TCP when it listens there.
  std::vector<std::string> StateStorageLines() const;

 private:
  Status TrustSubnet(const std::string& data) const;  // tcp_addr_'s /24 in pg_hba.conf
  std::string dir_;
  std::string tcp_addr_;
};

}  // namespace sluice::storage
