// AccountingStorageType/Host/Port/User/Pass/Loc (see AccountingConfig in config.h).
// Other AccountingStorage* keys (Enforce, TRES, ...) stay accepted-and-ignored here.
#include <fmt/format.h>

#include "common/config_internal.h"
#include "common/text_util.h"

namespace sluice {
namespace {

constexpr const char* kKeys[] = {"AccountingStorageType", "AccountingStorageHost",
                                 "AccountingStoragePort", "AccountingStorageUser",
                                 "AccountingStoragePass", "AccountingStorageLoc"};

}  // namespace

bool IsAccountingKey(std::string_view key) {
  for (const char* k : kKeys) {
    if (EqualsIgnoreCase(key, k)) return true;
  }
  return false;
}

Status SetAccountingKey(std::string_view key, std::string_view value, AccountingConfig* a) {
  std::string v(value);
  if (EqualsIgnoreCase(key, "AccountingStorageType")) {
    std::string t = v;
    for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t == "accounting_storage/slurmdbd") t = "accounting_storage/sqlite";
    if (t != "accounting_storage/sqlite" && t != "accounting_storage/pgsql" &&
        t != "accounting_storage/none") {
      return InvalidArgument(fmt::format(
          "invalid AccountingStorageType '{}' (accounting_storage/sqlite, "
          "accounting_storage/pgsql, accounting_storage/slurmdbd or accounting_storage/none)",
          v));
    }
    a->type = t;
  } else if (EqualsIgnoreCase(key, "AccountingStorageHost")) {
    a->host = v;
  } else if (EqualsIgnoreCase(key, "AccountingStoragePort")) {
    char* end = nullptr;
    long p = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || p <= 0 || p > 65535) {
      return InvalidArgument(fmt::format("invalid AccountingStoragePort '{}'", v));
    }
    a->port = static_cast<int>(p);
  } else if (EqualsIgnoreCase(key, "AccountingStorageUser")) {
    a->user = v;
  } else if (EqualsIgnoreCase(key, "AccountingStoragePass")) {
    a->pass = v;
  } else {
    a->loc = v;
  }
  return Status::Ok();
}

}  // namespace sluice
