#include "node_common/node_lease.h"

#include <algorithm>
#include <cstdlib>

#include "node_common/job_dir.h"

namespace sluice {

int64_t FenceMarginMs(int64_t slurmd_timeout_ms) {
  return std::clamp<int64_t>(slurmd_timeout_ms / 10, 500, 30'000);
}

int64_t LeaseUntilMs(int64_t sent_ms, int64_t slurmd_timeout_ms) {
  return sent_ms + slurmd_timeout_ms - FenceMarginMs(slurmd_timeout_ms);
}

std::string NodeLeasePath(const std::string& spool_dir) { return spool_dir + "/node.lease"; }

std::optional<int64_t> ReadNodeLease(const std::string& path) {
  auto text = ReadSmallFile(path);
  if (!text.ok() || text->empty()) return std::nullopt;
  char* end = nullptr;
  long long v = std::strtoll(text->c_str(), &end, 10);
  if (end == text->c_str() || (*end != '\n' && *end != '\0')) return std::nullopt;
  return static_cast<int64_t>(v);
}

Status RenewNodeLease(const std::string& path, int64_t until_ms) {
  if (auto current = ReadNodeLease(path); current && *current >= until_ms) return Status::Ok();
  return WriteFileAtomic(path, std::to_string(until_ms) + "\n", 0644, /*sync=*/false);
}

bool LeaseWatch::Expired(int64_t now_ms) {
  if (path_.empty()) return false;
  if (until_ms_ && now_ms < *until_ms_) return false;
  until_ms_ = ReadNodeLease(path_);
  return until_ms_ && now_ms >= *until_ms_;
}

}  // namespace sluice
