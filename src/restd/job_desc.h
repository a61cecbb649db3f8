// slurmrestd v0.0.38's job description ("job" of POST /job/submit, the body of POST
// /job/{id}) as the words of the commands that do the same: sbatch's options for a
// submission, `scontrol update JobId=N ...` (and hold/release) for an update. The
// commands then validate every value exactly as they do on a command line.
//   {"name": "x", "nodes": [2, 4], "tasks": 8, "gres": "gpu:8", "time_limit": 30}
//     -> --job-name=x --nodes=2-4 --ntasks=8 --gres=gpu:8 --time=30
// Errors (kInvalidArgument, naming the field): a field Sluice does not know, a value of
// the wrong JSON type, a missing "environment".
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace sluice {

struct SbatchCall {
  std::vector<std::string> args;               // options only; the script comes on stdin
  std::map<std::string, std::string> environ;  // "environment"
  std::string cwd = "/";                       // "current_working_directory"
  std::vector<std::string> script_args;         // "argv": the script's $1, $2, ...
};
Expected<SbatchCall> SbatchCallFor(const nlohmann::json& job);

// The scontrol commands an update runs (it can change comment, name, nice, time_limit, hold), in
// order: {"update", "JobId=N", K=V...} when any field changes something, then {"hold", N} /
// {"release", N} for "hold".
Expected<std::vector<std::vector<std::string>>> ScontrolCallsFor(int64_t job_id,
                                                                 const nlohmann::json& job);

}  // namespace sluice
