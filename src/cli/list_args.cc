#include "cli/list_args.h"

#include <charconv>

namespace sluice {

std::vector<std::string> SplitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t next = s.find(sep, pos);
    if (next == std::string::npos) next = s.size();
    if (next > pos) out.push_back(s.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

Expected<int64_t> ParseJobId(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size() && v > 0) return v;
  if (ec == std::errc() && v > 0 && *p == '_')
    return FailedPrecondition("Job arrays are not supported yet: " + s);
  return InvalidArgument("Invalid job id: " + s);
}

Expected<std::vector<int64_t>> ParseJobIdList(const std::string& s) {
  std::vector<int64_t> out;
  for (const std::string& part : SplitList(s, ',')) {
    for (const std::string& word : SplitList(part, ' ')) {
      ASSIGN_OR_RETURN(int64_t id, ParseJobId(word));
      out.push_back(id);
    }
  }
  return out;
}

}  // namespace sluice
