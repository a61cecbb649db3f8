// cgroup.conf (read beside the config file): ConstrainDevices=yes|no. The other keys of
// Slurm's cgroup.conf are accepted and have no effect (Sluice always tracks jobs in
// cgroups where it can and limits their memory); an unknown key is an error.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "common/config_internal.h"
#include "common/text_util.h"

namespace sluice {

Status ApplyCgroupConf(std::string_view text, std::string_view path, Config* config) {
  ASSIGN_OR_RETURN(auto lines, LexConfig(text, path));
  static const char* kAccepted[] = {
      "CgroupPlugin",       "CgroupAutomount",
      "CgroupMountpoint",   "ConstrainCores",
      "ConstrainRAMSpace",  "ConstrainSwapSpace",
      "ConstrainKmemSpace", "AllowedRAMSpace",
      "AllowedSwapSpace",   "AllowedKmemSpace",
      "MaxRAMPercent",      "MaxSwapPercent",
      "MaxKmemPercent",     "MinRAMSpace",
      "MinKmemSpace",       "MemorySwappiness",
      "IgnoreSystemd",      "IgnoreSystemdOnFailure",
      "EnableControllers",  "SignalChildrenProcesses",
  };
  for (const ConfigLine& line : lines) {
    for (const ConfigPair& p : line.pairs) {
      Status st;
      if (EqualsIgnoreCase(p.key, "ConstrainDevices")) {
        st = ParseBoolValue("ConstrainDevices", p.value, &config->constrain_devices);
      } else if (std::none_of(std::begin(kAccepted), std::end(kAccepted),
                              [&](const char* k) { return EqualsIgnoreCase(p.key, k); })) {
        st = InvalidArgument(fmt::format("unknown key '{}'", p.key));
      }
      RETURN_IF_ERROR(AtLine(st, path, line.line_no));
    }
  }
  config->cgroup_conf = std::string(path);
  return Status::Ok();
}

}  // namespace sluice
