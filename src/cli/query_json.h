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

// `root` with `key` set to the array of to_json(item) for every item, printed exactly as
// root.dump(2) + "\n" would print it, each item built and printed in turn: a listing of
// 100,000 jobs is never one tree of a few GB. `root` must not hold `key`.
template <typename T, typename ToJson>
std::string DumpListing(nlohmann::json root, const std::string& key, const std::vector<T>& items,
                        ToJson to_json) {
  root[key] = nlohmann::json::array();
  const std::string doc = root.dump(2);
  const std::string empty = "\n  \"" + key + "\": []";  // a top-level key: indented by 2
  const size_t at = doc.find(empty);
  std::string out = doc.substr(0, at + empty.size() - 1);  // up to and with the '['
  for (size_t i = 0; i < items.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    for (char c : to_json(items[i]).dump(2)) {  // indented by 4: JSON strings hold no raw newline
      out += c;
      if (c == '\n') out += "    ";
    }
  }
  out += items.empty() ? "]" : "\n  ]";
  out += doc.substr(at + empty.size());
  return out + "\n";
}

// {"meta": ..., "errors": [], "jobs": [...]}
std::string FormatSqueueJson(const std::vector<JobInfo>& jobs, const std::string& cluster);
// {"meta": ..., "errors": [], "nodes": [...]}; `user` names a uid (reason_set_by_user).
std::string FormatSinfoJson(const std::vector<NodeInfo>& nodes,
                            const std::function<std::string(uint32_t)>& user);
// sdiag --json: {"meta": ..., "errors": [], "statistics": {...}} with Slurm's key names.
std::string FormatSdiagJson(const GetStatsReply& s);

}  // namespace sluice
