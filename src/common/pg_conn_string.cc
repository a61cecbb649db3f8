#include "common/pg_conn_string.h"

#include <fmt/format.h>

namespace sluice {
namespace {

std::string Quote(const std::string& v) {
  std::string out = "'";
  for (char ch : v) {
    if (ch == '\'' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "'";
}

}  // namespace

std::string PgConnString(const std::string& host, int port, const std::string& user,
                         const std::string& pass, const std::string& db) {
  std::string s;
  if (!host.empty()) s += " host=" + Quote(host);
  if (port > 0) s += fmt::format(" port={}", port);
  if (!user.empty()) s += " user=" + Quote(user);
  if (!pass.empty()) s += " password=" + Quote(pass);
  s += " dbname=" + Quote(db);
  s += " connect_timeout=10";
  return s;
}

}  // namespace sluice
