// ExpandOutputPattern (declared in slurm_format.h).
#include <fmt/format.h>

#include <cctype>
#include <optional>

#include "common/slurm_format.h"

namespace sluice {
namespace {

constexpr int kMaxPadWidth = 64;

std::string Number(int64_t n, int width) { return fmt::format("{:0{}d}", n, width); }

// The expansion of `letter`, or nullopt to leave the sequence as written.
std::optional<std::string> Field(char letter, int width, const PatternVars& v) {
  bool array = v.array_task_id >= 0;
  int64_t task = array ? v.array_task_id : kNoArrayTaskId;
  switch (letter) {
    case 'j':
      return Number(v.job_id, width);
    case 'x':
      return v.job_name;
    case 'u':
      return v.user;
    case 'N':
      if (v.node.empty()) return std::nullopt;
      return v.node;
    case 'A':
      return Number(array ? v.array_job_id : v.job_id, width);
    case 'a':
      return Number(task, width);
    case 'b':
      return Number(task % 10, width);
    case 'J':
      if (v.step_id < 0) return Number(v.job_id, width);
      return Number(v.job_id, width) + "." + std::to_string(v.step_id);
    case 's':
      if (v.step_id < 0) return std::string("batch");
      return Number(v.step_id, width);
    case 't':
      if (v.task_id < 0) return std::nullopt;
      return Number(v.task_id, width);
    case 'n':
      if (v.node_index < 0) return std::nullopt;
      return Number(v.node_index, width);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string ExpandOutputPattern(std::string_view pattern, const PatternVars& v) {
  std::string out;
  if (pattern.find('\\') != std::string_view::npos) {
    for (char c : pattern) {
      if (c != '\\') out += c;
    }
    return out;
  }
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    if (pattern[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) {
      width = std::min(kMaxPadWidth, width * 10 + (pattern[j] - '0'));
      ++j;
    }
    std::optional<std::string> field =
        j < pattern.size() ? Field(pattern[j], width, v) : std::nullopt;
    if (!field) {
      out += pattern[i];  // leave "%..." as written; the rest is copied verbatim
      continue;
    }
    out += *field;
    i = j;
  }
  return out;
}

}  // namespace sluice
