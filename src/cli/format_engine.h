// The output-format engine shared by squeue and sinfo.
//   -o style: "%.18i %9P|%j": a field is '%', optional '.' (right-justify) or '-' (left)
//     or '#' (width chosen by the command from the values, sinfo's node lists),
//     optional width, and a one-letter key; text between fields is copied; "%%" is '%'.
//     A field with a width is padded and truncated to it (Slurm's behaviour); without
//     one the value is printed whole.
//   -O style: "JobID:10,Name,State:.12": comma-separated names (case-insensitive), each
//     with optional ":[.]width"; the default width is 20, left-justified, nothing between.
// Each command maps keys to headers and values; RenderLine glues the cells.
// Bounds: a width is clamped to kMaxFieldWidth; a format whose widths and literals add
// up to more than kMaxLineWidth is refused ("Invalid format specification: ...").
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

inline constexpr int kMaxFieldWidth = 100000;
inline constexpr size_t kMaxLineWidth = 1 << 20;

struct FormatField {
  std::string literal;  // set for literal text (key empty)
  std::string key;      // "i" for %i; lower-cased name for -O ("jobid")
  int width = 0;        // 0 = natural width
  bool right = false;
  bool auto_width = false;  // "%#N": the command sets `width` from the values
};

Expected<std::vector<FormatField>> ParsePercentFormat(std::string_view fmt);
Expected<std::vector<FormatField>> ParseNamedFormat(std::string_view fmt, int default_width = 20);

// Pads (or truncates) `value` to `width`; width 0 returns it unchanged.
std::string Justify(std::string_view value, int width, bool right);

using CellFn = std::function<std::string(const FormatField&)>;
std::string RenderLine(const std::vector<FormatField>& fields, const CellFn& cell);

}  // namespace sluice
