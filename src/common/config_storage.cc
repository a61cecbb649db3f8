// The database settings of accounting and of the controller's state: AccountingStorage* and
// StateStorage* Type/Host/Port/User/Pass/Loc (StorageConfig in config.h). Other
// AccountingStorage* keys (Enforce, TRES, ...) stay accepted-and-ignored by the parser.
#include <fmt/format.h>

#include "common/config_internal.h"
#include "common/text_util.h"

namespace sluice {
namespace {

constexpr const char* kFields[] = {"Type", "Host", "Port", "User", "Pass", "Loc"};

// The field of `key` after `prefix` ("Host", ...), or "" when `key` is not one of ours.
std::string_view FieldOf(std::string_view key, std::string_view prefix) {
  if (!StartsWithIgnoreCase(key, prefix)) return "";
  std::string_view rest = key.substr(prefix.size());
  for (const char* f : kFields) {
    if (EqualsIgnoreCase(rest, f)) return f;
  }
  return "";
}

std::string Lower(std::string v) {
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

Status SetField(std::string_view key, std::string_view field, std::string_view value,
                StorageConfig* s) {
  std::string v(value);
  if (field == "Host") {
    s->host = v;
  } else if (field == "Port") {
    char* end = nullptr;
    long p = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || p <= 0 || p > 65535) {
      return InvalidArgument(fmt::format("invalid {} '{}'", key, v));
    }
    s->port = static_cast<int>(p);
  } else if (field == "User") {
    s->user = v;
  } else if (field == "Pass") {
    s->pass = v;
  } else {
    s->loc = v;
  }
  return Status::Ok();
}

}  // namespace

bool IsStorageKey(std::string_view key) {
  return !FieldOf(key, "AccountingStorage").empty() || !FieldOf(key, "StateStorage").empty();
}

Status SetStorageKey(std::string_view key, std::string_view value, Config* config) {
  if (std::string_view f = FieldOf(key, "AccountingStorage"); !f.empty()) {
    if (f != "Type") return SetField(key, f, value, &config->accounting);
    std::string t = Lower(std::string(value));
    if (t == "accounting_storage/slurmdbd") t = "accounting_storage/sqlite";
    if (t != "accounting_storage/sqlite" && t != "accounting_storage/pgsql" &&
        t != "accounting_storage/none") {
      return InvalidArgument(fmt::format(
          "invalid AccountingStorageType '{}' (accounting_storage/sqlite, "
          "accounting_storage/pgsql, accounting_storage/slurmdbd or accounting_storage/none)",
          value));
    }
    config->accounting.type = t;
    return Status::Ok();
  }
  std::string_view f = FieldOf(key, "StateStorage");
  if (f != "Type") return SetField(key, f, value, &config->state_storage);
  std::string t = Lower(std::string(value));
  if (t != "state/sqlite" && t != "state/pgsql") {
    return InvalidArgument(
        fmt::format("invalid StateStorageType '{}' (state/sqlite or state/pgsql)", value));
  }
  config->state_storage.type = t;
  return Status::Ok();
}

}  // namespace sluice
