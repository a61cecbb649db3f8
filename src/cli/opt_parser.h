// A reentrant command-line parser with GNU getopt_long semantics and glibc's exact
// messages, so the commands can be unit-tested (getopt_long keeps global state and
// prints to the process's stderr).
//   - long options `--name=value` / `--name value`, unambiguous prefixes accepted
//     (an exact match wins; several candidates -> "is ambiguous");
//   - short options clustered (`-Hv`), value attached (`-o%P`) or separate (`-o %P`);
//   - optional arguments only attached (`--opt=x`, `-jX`), except options listed in
//     `ParseSettings::optional_takes_next_word` which also consume a following word not
//     starting with '-' (squeue -j);
//   - positionals are permuted to the end unless `stop_at_first_positional` (sbatch:
//     everything after the script path belongs to the script); "--" ends options.
// Errors are Status(kInvalidArgument) whose message is glibc's line, e.g.
//   "sbatch: unrecognized option '--bogus-option'"
//   "squeue: invalid option -- 'Z'"
//   "sbatch: option requires an argument -- 'J'"
//   "sbatch: option '--job-name' requires an argument"
//   "sbatch: option '--parsable' doesn't allow an argument"
// and `*bad_arg` (when given) is set to the offending word ("--bogus-option", "-Z").
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice {

enum class ArgKind { kNone, kRequired, kOptional };

struct OptionDef {
  const char* long_name;  // nullptr: short only
  char short_name;        // 0: long only
  ArgKind arg;
  int id;
};

struct ParsedOption {
  int id = 0;
  std::string value;
  bool has_value = false;
  std::string spelled;  // "--time" / "-t", for messages
};

struct ParsedArgs {
  std::vector<ParsedOption> options;  // in command-line order
  std::vector<std::string> positionals;
};

struct ParseSettings {
  bool stop_at_first_positional = false;
  std::set<int> optional_takes_next_word;
};

// "--time" for an option given as "--time", "--ti" or "-t" (the def with that short letter).
std::string LongOptionName(const ParsedOption& opt, const std::vector<OptionDef>& defs);

Expected<ParsedArgs> ParseCommandLine(const std::string& prog, const std::vector<std::string>& args,
                                      const std::vector<OptionDef>& defs,
                                      const ParseSettings& settings = {},
                                      std::string* bad_arg = nullptr);

}  // namespace sluice
