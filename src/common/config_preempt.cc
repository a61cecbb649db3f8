// slurm.conf keys of preemption: PreemptType, PreemptMode, PreemptExemptTime (global) and
// the partition keys PreemptMode / GraceTime. Errors name the key.
#include <fmt/format.h>

#include "common/config_internal.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {

bool IsPreemptKey(std::string_view key) {
  return EqualsIgnoreCase(key, "PreemptType") || EqualsIgnoreCase(key, "PreemptMode") ||
         EqualsIgnoreCase(key, "PreemptExemptTime");
}

Status SetPreemptKey(std::string_view key, std::string_view value, Config* c) {
  if (EqualsIgnoreCase(key, "PreemptType")) {
    ASSIGN_OR_RETURN(c->preempt_type, ParsePreemptType(value));
    return Status::Ok();
  }
  if (EqualsIgnoreCase(key, "PreemptMode")) {
    ASSIGN_OR_RETURN(c->preempt_mode, ParsePreemptMode(value, false));
    return Status::Ok();
  }
  if (value == "-1" || EqualsIgnoreCase(value, "NONE")) {
    c->preempt_exempt_time_s = -1;
    return Status::Ok();
  }
  auto minutes = ParseTimeLimitMinutes(value);
  if (!minutes.ok() || *minutes < 0) {
    return InvalidArgument(fmt::format("invalid value '{}' for PreemptExemptTime", value));
  }
  c->preempt_exempt_time_s = *minutes * 60;
  return Status::Ok();
}

bool IsPartitionPreemptKey(std::string_view key) {
  return EqualsIgnoreCase(key, "PreemptMode") || EqualsIgnoreCase(key, "GraceTime");
}

Status SetPartitionPreemptKey(std::string_view key, std::string_view value, PartitionConfig* p) {
  if (EqualsIgnoreCase(key, "PreemptMode")) {
    ASSIGN_OR_RETURN(p->preempt_mode, ParsePreemptMode(value, false));
    return Status::Ok();
  }
  return ParseIntValue("GraceTime", value, int64_t{0}, int64_t{365} * 86400, &p->grace_time_s);
}

}  // namespace sluice
