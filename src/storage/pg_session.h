// PgSession: the controller's connection to its state database (state/pgsql), shared in
// shape by PgStateStore and PgLease. It opens on first use and again after it broke (the
// server restarted, the network dropped), creating the controller's tables when missing
// (names start with ctld_, so the accounting tables, acct_*, may share the database;
// creation is serialised by an advisory lock, two controllers may start at once).
//
// A stopped controller must not hold off the others: each session waits at most
// kPgLockTimeoutMs for a lock, and the server ends a transaction left idle for
// kPgIdleTransactionMs (a process paused inside one), rolling it back.
#pragma once

#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "common/status.h"

namespace sluice::storage {

inline constexpr int kPgLockTimeoutMs = 1000;
inline constexpr int kPgIdleTransactionMs = 1000;

class PgSession {
 public:
  explicit PgSession(std::string conn) : conn_(std::move(conn)) {}

  // Runs `fn(pqxx::connection&) -> Status`; an exception becomes an error naming `what`.
  template <typename Fn>
  Status Run(const char* what, Fn fn) {
    if (Status st = Connect(); !st.ok()) return st;
    try {
      return fn(*pq_);
    } catch (const pqxx::broken_connection& e) {
      pq_.reset();  // opened again by the next Run
      return Error(what, e);
    } catch (const std::exception& e) {
      return Error(what, e);
    }
  }

  // Opens the connection now when it is not open (Run does so itself).
  Status Connect();

  static Status Error(const char* what, const std::exception& e);

 private:
  const std::string conn_;
  std::unique_ptr<pqxx::connection> pq_;
};

}  // namespace sluice::storage
