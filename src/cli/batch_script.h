// Batch script handling for sbatch.
//   CheckBatchScript: Slurm's sanity checks (empty, whitespace only, no "#!" on line 1,
//     NUL byte, DOS line breaks). The error message may span several lines; each line is
//     printed with the "sbatch: error: " prefix.
//   ExtractDirectives: the `#SBATCH` tokens. Scanning stops at the first line whose
//     first non-blank character is not '#' (blank lines and other comments are skipped);
//     "#SBATCH" must start in column 0. Each line is split shell-like: whitespace
//     separates tokens, '...' and "..." quotes are removed, backslash escapes the next
//     character, an unquoted '#' ends the line. Unmatched quotes are errors, naming the line.
//   WrapScript: the script sbatch --wrap submits.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

Status CheckBatchScript(std::string_view script);

// Tokens of one directive line body (the text after "#SBATCH").
Expected<std::vector<std::string>> TokenizeDirective(std::string_view body);

struct Directive {
  int line = 0;  // 1-based line number in the script
  std::vector<std::string> tokens;
};
Expected<std::vector<Directive>> ExtractDirectives(std::string_view script);

std::string WrapScript(std::string_view command);

}  // namespace sluice
