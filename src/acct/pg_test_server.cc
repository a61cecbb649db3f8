#include "acct/pg_test_server.h"

#include <stdlib.h>

#include <filesystem>
#include <pqxx/pqxx>

namespace sluice::acct {

Status PgTestServer::Start() {
  char tmpl[] = "/tmp/sluice-pg-XXXXXX";
  if (!mkdtemp(tmpl)) return Unavailable("mkdtemp failed");
  server_ = std::make_unique<storage::PgServer>(tmpl);
  Status st = server_->Start();
  if (!st.ok()) Stop();
  return st;
}

void PgTestServer::Stop() {
  if (!server_) return;
  server_->Stop();
  std::error_code ec;
  std::filesystem::remove_all(server_->dir(), ec);
  server_.reset();
}

AcctConfig PgTestServer::Config() const {
  AcctConfig c;
  c.type = "accounting_storage/pgsql";
  c.host = server_->socket_dir();
  c.port = storage::PgServer::kPort;
  c.user = storage::PgServer::kUser;
  c.db = storage::PgServer::kDatabase;
  return c;
}

Status PgTestServer::Reset() {
  try {
    pqxx::connection c(conn_string());
    pqxx::nontransaction tx(c);
    tx.exec("DROP TABLE IF EXISTS acct_jobs, acct_steps, acct_node_events");
    return Status::Ok();
  } catch (const std::exception& e) {
    return Unavailable(e.what());
  }
}

Status PgTestServer::ExecSql(const std::string& sql) {
  try {
    pqxx::connection c(conn_string());
    pqxx::nontransaction tx(c);
    tx.exec(sql);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Unavailable(e.what());
  }
}

}  // namespace sluice::acct
