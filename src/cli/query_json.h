// `squeue --json` and `sinfo --json` in the shapes of Slurm 22.05 (openapi/v0.0.38, see
// ../shared/reference/cli/squeue_json.txt and sinfo_json.txt), which torchx and others
// parse: every key Slurm prints, with what Sluice knows and Slurm's value for what it has
// no notion of (licenses, burst buffers, het jobs, MCS labels, ...).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client.pb.h"
#include "types.pb.h"

namespace sluice {

// The "meta" object every --json output starts with (plugin and Slurm version).
nlohmann::json OpenApiMeta();

// {"meta": ..., "errors": [], "jobs": [...]}
std::string FormatSqueueJson(const std::vector<JobInfo>& jobs, const std::string& cluster);
// {"meta": ..., "errors": [], "nodes": [...]}; `user` names a uid (reason_set_by_user).
std::string FormatSinfoJson(const std::vector<NodeInfo>& nodes,
                            const std::function<std::string(uint32_t)>& user);
// sdiag --json: {"meta": ..., "errors": [], "statistics": {...}} with Slurm's key names.
std::string FormatSdiagJson(const GetStatsReply& s);

}  // namespace sluice
