// Priority keys and the account tree lines of the config (see config.h).
// AccountName=/UserName= lines seed the controller's association database
// (ctld/components/assoc_db.h); sacctmgr edits it.
#include <fmt/format.h>

#include <algorithm>

#include "common/config.h"
#include "common/config_internal.h"
#include "common/slurm_format.h"
#include "common/text_util.h"
#include "common/tres_billing.h"

namespace sluice {
namespace {

constexpr int64_t kMaxWeight = 4294967295LL;
constexpr int64_t kMaxShares = 2147483647LL;

Status SetSeconds(std::string_view key, std::string_view v, int64_t* out) {
  auto minutes = ParseTimeLimitMinutes(v);
  if (!minutes.ok() || *minutes < 0) {
    return InvalidArgument(fmt::format("invalid value '{}' for {}: expected a time", v, key));
  }
  *out = *minutes * 60;
  return Status::Ok();
}

Status SetPriorityType(std::string_view v, PriorityConfig* p) {
  if (EqualsIgnoreCase(v, "priority/basic")) return (p->multifactor = false, Status::Ok());
  if (EqualsIgnoreCase(v, "priority/multifactor")) return (p->multifactor = true, Status::Ok());
  return InvalidArgument(
      fmt::format("invalid PriorityType '{}': expected priority/basic or priority/multifactor", v));
}

Status SetBilling(std::string_view v, PriorityConfig* p) {
  RETURN_IF_ERROR(ParseTresBillingWeights(v).status());
  p->tres_billing_weights = std::string(v);
  return Status::Ok();
}

struct WeightKey {
  const char* name;
  int64_t PriorityConfig::*field;
};

const WeightKey kWeights[] = {
    {"PriorityWeightAge", &PriorityConfig::weight_age},
    {"PriorityWeightFairshare", &PriorityConfig::weight_fairshare},
    {"PriorityWeightJobSize", &PriorityConfig::weight_job_size},
    {"PriorityWeightPartition", &PriorityConfig::weight_partition},
    {"PriorityWeightQOS", &PriorityConfig::weight_qos},
};

const char* const kOtherKeys[] = {
    "PriorityType",          "PriorityWeightTRES",      "PriorityWeightAssoc", "PriorityMaxAge",
    "PriorityDecayHalfLife", "PriorityFavorSmall",      "TRESBillingWeights",  "PriorityFlags",
    "PriorityCalcPeriod",    "PriorityUsageResetPeriod"};

Status SetShares(std::string_view v, int64_t* out) {
  if (EqualsIgnoreCase(v, "parent")) return InvalidArgument("Fairshare=parent is not supported");
  return ParseIntValue("Fairshare", v, 0, kMaxShares, out);
}

bool AccountKnown(const Config& c, std::string_view name) {
  if (name == "root") return true;
  return std::any_of(c.accounts.begin(), c.accounts.end(),
                     [&](const AccountDef& a) { return a.name == name; });
}

}  // namespace

bool IsPriorityKey(std::string_view key) {
  for (const auto& w : kWeights) {
    if (EqualsIgnoreCase(key, w.name)) return true;
  }
  for (const char* k : kOtherKeys) {
    if (EqualsIgnoreCase(key, k)) return true;
  }
  return false;
}

Status SetPriorityKey(std::string_view key, std::string_view v, PriorityConfig* p) {
  for (const auto& w : kWeights) {
    if (EqualsIgnoreCase(key, w.name))
      return ParseIntValue(w.name, v, 0, kMaxWeight, &(p->*w.field));
  }
  if (EqualsIgnoreCase(key, "PriorityType")) return SetPriorityType(v, p);
  if (EqualsIgnoreCase(key, "PriorityWeightTRES"))
    return (p->weight_tres = std::string(v), Status::Ok());
  if (EqualsIgnoreCase(key, "PriorityMaxAge"))
    return SetSeconds("PriorityMaxAge", v, &p->max_age_s);
  if (EqualsIgnoreCase(key, "PriorityDecayHalfLife")) {
    return SetSeconds("PriorityDecayHalfLife", v, &p->decay_half_life_s);
  }
  if (EqualsIgnoreCase(key, "PriorityFavorSmall")) {
    return ParseBoolValue("PriorityFavorSmall", v, &p->favor_small);
  }
  if (EqualsIgnoreCase(key, "TRESBillingWeights")) return SetBilling(v, p);
  return Status::Ok();  // PriorityFlags, PriorityCalcPeriod, ...: accepted, no effect
}

Status ParseAccountLine(const ConfigLine& line, ParseContext* ctx) {
  AccountDef def;
  def.name = line.pairs.front().value;
  if (def.name.empty() || def.name == "root") {
    return ConfigError(ctx->path, line.line_no, fmt::format("invalid AccountName '{}'", def.name));
  }
  for (size_t i = 1; i < line.pairs.size(); ++i) {
    const ConfigPair& p = line.pairs[i];
    Status st;
    if (EqualsIgnoreCase(p.key, "Parent"))
      def.parent = p.value;
    else if (EqualsIgnoreCase(p.key, "Fairshare"))
      st = SetShares(p.value, &def.shares);
    else
      st = InvalidArgument(fmt::format("unknown key '{}'", p.key));
    RETURN_IF_ERROR(AtLine(st, ctx->path, line.line_no));
  }
  Config* c = ctx->config;
  if (AccountKnown(*c, def.name)) {
    return ConfigError(ctx->path, line.line_no, fmt::format("duplicate account '{}'", def.name));
  }
  if (!AccountKnown(*c, def.parent)) {
    return ConfigError(ctx->path, line.line_no,
                       fmt::format("account '{}': unknown parent '{}'", def.name, def.parent));
  }
  c->accounts.push_back(std::move(def));
  return Status::Ok();
}

Status ParseUserAssocLine(const ConfigLine& line, ParseContext* ctx) {
  UserAssocDef def;
  def.user = line.pairs.front().value;
  if (def.user.empty()) return ConfigError(ctx->path, line.line_no, "empty UserName");
  for (size_t i = 1; i < line.pairs.size(); ++i) {
    const ConfigPair& p = line.pairs[i];
    Status st;
    if (EqualsIgnoreCase(p.key, "Account"))
      def.account = p.value;
    else if (EqualsIgnoreCase(p.key, "Fairshare"))
      st = SetShares(p.value, &def.shares);
    else
      st = InvalidArgument(fmt::format("unknown key '{}'", p.key));
    RETURN_IF_ERROR(AtLine(st, ctx->path, line.line_no));
  }
  Config* c = ctx->config;
  if (def.account.empty()) def.account = "root";
  if (!AccountKnown(*c, def.account)) {
    return ConfigError(ctx->path, line.line_no,
                       fmt::format("user '{}': unknown account '{}'", def.user, def.account));
  }
  for (const auto& u : c->user_assocs) {
    if (u.user == def.user && u.account == def.account) {
      return ConfigError(ctx->path, line.line_no,
                         fmt::format("duplicate user '{}' in account '{}'", def.user, def.account));
    }
  }
  c->user_assocs.push_back(std::move(def));
  return Status::Ok();
}

}  // namespace sluice
