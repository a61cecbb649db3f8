// slurm.conf keys of automatic requeue: MaxBatchRequeue=N, RequeueExit=<codes>,
// RequeueExitHold=<codes>, where <codes> is a comma list of exit codes and ranges
// ("1,3-5"), each 0..255.
#include <fmt/format.h>

#include <charconv>

#include "common/config_internal.h"
#include "common/text_util.h"

namespace sluice {
namespace {

bool ParseCode(std::string_view t, int* v) {
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return !t.empty() && ec == std::errc() && p == t.data() + t.size() && *v >= 0 && *v <= 255;
}

Status ParseExitCodes(std::string_view key, std::string_view value, std::set<int>* out) {
  out->clear();
  for (const std::string& item : ParseList(value)) {
    std::string_view it = item;
    size_t dash = it.find('-');
    int lo = 0, hi = 0;
    bool ok = dash == std::string_view::npos ? ParseCode(it, &lo) && (hi = lo, true)
                                             : ParseCode(it.substr(0, dash), &lo) &&
                                                   ParseCode(it.substr(dash + 1), &hi) && lo <= hi;
    if (!ok) {
      return InvalidArgument(
          fmt::format("invalid value '{}' for {}: expected exit codes 0-255", value, key));
    }
    for (int c = lo; c <= hi; ++c) out->insert(c);
  }
  return Status::Ok();
}

}  // namespace

bool IsRequeueKey(std::string_view key) {
  return EqualsIgnoreCase(key, "MaxBatchRequeue") || EqualsIgnoreCase(key, "RequeueExit") ||
         EqualsIgnoreCase(key, "RequeueExitHold");
}

Status SetRequeueKey(std::string_view key, std::string_view value, RequeueConfig* r) {
  if (EqualsIgnoreCase(key, "MaxBatchRequeue")) {
    return ParseIntValue("MaxBatchRequeue", value, 0, 65535, &r->max_batch_requeue);
  }
  if (EqualsIgnoreCase(key, "RequeueExit")) {
    return ParseExitCodes("RequeueExit", value, &r->requeue_exit);
  }
  return ParseExitCodes("RequeueExitHold", value, &r->requeue_exit_hold);
}

}  // namespace sluice
