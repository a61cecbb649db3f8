// `sacctmgr --json show ENTITY` in the shapes of Slurm 22.05's slurmdb v0.0.38 (what
// `sacctmgr --json` prints): {"meta", "errors": [], "<entities>": [...]} with "accounts",
// "associations", "clusters", "QOS", "users", "wckeys" (Sluice tracks none) and "TRES".
#pragma once

#include <string>
#include <vector>

#include "cli/sacctmgr_args.h"
#include "client.pb.h"

namespace sluice {

// One TRES of the cluster: "cpu", "mem", ..., then "gres/<type>" for each GresTypes entry.
struct TresRow {
  std::string type;
  std::string name;
  int id = 0;
};
std::vector<TresRow> ClusterTres(const std::vector<std::string>& gres_types);

std::string FormatSacctmgrJson(const SacctmgrCommand& cmd, const SacctmgrReply& reply,
                               const std::vector<TresRow>& tres);

}  // namespace sluice
