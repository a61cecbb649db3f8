// PrivateData parsing (see private_data.h); its filters are Access's (access.h).
#include "ctld/components/private_data.h"

#include <fmt/format.h>
#include <strings.h>

#include <string>

namespace sluice::ctld {

Expected<PrivateData> ParsePrivateData(std::string_view value) {
  PrivateData p;
  size_t pos = 0;
  while (pos <= value.size()) {
    size_t comma = value.find(',', pos);
    if (comma == std::string_view::npos) comma = value.size();
    std::string item(value.substr(pos, comma - pos));
    pos = comma + 1;
    auto is = [&](const char* name) { return strcasecmp(item.c_str(), name) == 0; };
    if (item.empty()) continue;
    if (is("jobs"))
      p.jobs = true;
    else if (is("usage"))
      p.usage = true;
    else if (is("users"))
      p.users = true;
    else if (is("accounts"))
      p.accounts = true;
    else if (is("reservations"))
      p.reservations = true;
    else if (is("cloud") || is("events") || is("nodes") || is("partitions"))
      continue;
    else
      return InvalidArgument(fmt::format("PrivateData: unknown item '{}'", item));
  }
  return p;
}

PrivateData PrivateDataOf(const Config& config) {
  auto it = config.raw.find("PrivateData");
  if (it == config.raw.end()) return {};
  auto p = ParsePrivateData(it->second);
  return p.ok() ? *p : PrivateData{true, true, true, true, true};
}

}  // namespace sluice::ctld
