// PostgreSQL backend of AcctStore (accounting_storage/pgsql) over libpqxx 6.4. One
// connection; statements run in a nontransaction with explicit BEGIN/COMMIT from
// AcctStore::Apply; parameters are quoted by the connection (esc/quote).
#include <fmt/format.h>

#include <cctype>

#include <pqxx/pqxx>

#include "acct/acct_store.h"
#include "common/pg_conn_string.h"

namespace sluice::acct {
namespace {

class PgsqlAcctStore final : public AcctStore {
 public:
  explicit PgsqlAcctStore(std::unique_ptr<pqxx::connection> conn) : conn_(std::move(conn)) {}
  Status Init() { return CreateSchema(); }

 protected:
  Status Exec(const std::string& sql, const Row& params) override {
    try {
      pqxx::nontransaction tx(*conn_);
      tx.exec(Bind(tx, sql, params));
      return Status::Ok();
    } catch (const std::exception& e) {
      return Unavailable(std::string("accounting database (pgsql): ") + e.what());
    }
  }

  Expected<std::vector<Row>> Select(const std::string& sql, const std::string& kinds,
                                    const Row& params = {}) override {
    try {
      pqxx::nontransaction tx(*conn_);
      pqxx::result res = tx.exec(Bind(tx, sql, params));
      std::vector<Row> rows;
      for (const auto& r : res) {
        Row row;
        for (size_t i = 0; i < kinds.size(); ++i) {
          if (kinds[i] == 'i') {
            row.emplace_back(r[static_cast<int>(i)].as<int64_t>());
          } else {
            row.emplace_back(r[static_cast<int>(i)].as<std::string>());
          }
        }
        rows.push_back(std::move(row));
      }
      return rows;
    } catch (const std::exception& e) {
      return Unavailable(std::string("accounting database (pgsql): ") + e.what());
    }
  }

  Expected<bool> HasColumn(const std::string& table, const std::string& column) override {
    ASSIGN_OR_RETURN(auto rows,
                     Select(fmt::format("SELECT COUNT(*) FROM information_schema.columns "
                                        "WHERE table_schema = current_schema() AND "
                                        "table_name = '{}' AND column_name = '{}'",
                                        table, column),
                            "i"));
    return !rows.empty() && std::get<int64_t>(rows[0][0]) > 0;
  }

 private:
  // Replaces each $N by the quoted parameter in one left-to-right pass, so a value that
  // itself contains "$2" is never substituted again.
  static std::string Bind(pqxx::transaction_base& tx, const std::string& sql, const Row& params) {
    std::string out;
    for (size_t i = 0; i < sql.size(); ++i) {
      size_t j = i + 1;
      while (sql[i] == '$' && j < sql.size() && isdigit(static_cast<unsigned char>(sql[j]))) ++j;
      size_t n = j > i + 1 ? std::stoul(sql.substr(i + 1, j - i - 1)) : 0;
      if (n == 0 || n > params.size()) {
        out += sql[i];
        continue;
      }
      const Row::value_type& v = params[n - 1];
      out += std::holds_alternative<int64_t>(v) ? std::to_string(std::get<int64_t>(v))
                                                : tx.quote(std::get<std::string>(v));
      i = j - 1;
    }
    return out;
  }
  std::unique_ptr<pqxx::connection> conn_;
};

std::string ConnString(const AcctConfig& c) {
  return PgConnString(c.host, c.port, c.user, c.pass, c.db.empty() ? "slurm_acct_db" : c.db);
}

}  // namespace

Expected<std::unique_ptr<AcctStore>> OpenPgsqlAcctStore(const AcctConfig& config) {
  try {
    auto conn = std::make_unique<pqxx::connection>(ConnString(config));
    auto store = std::make_unique<PgsqlAcctStore>(std::move(conn));
    RETURN_IF_ERROR(store->Init());
    return std::unique_ptr<AcctStore>(std::move(store));
  } catch (const std::exception& e) {
    return Unavailable(std::string("cannot connect to the accounting database (pgsql): ") +
                       e.what());
  }
}

}  // namespace sluice::acct
