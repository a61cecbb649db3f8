// What each command prints for `--usage` (a synopsis of its options) and `--help` (the
// options, one per line, grouped). The layout is Slurm's, because scripts and Slurm's
// own testsuite look for its landmarks ("Usage: squeue [OPTIONS]", "Help options:",
// "Valid <OPTION> values are:", a usage ending in "executable [args...]"); the wording
// is Sluice's and lists only options Sluice accepts.
#pragma once

#include <string_view>

namespace sluice {

enum class HelpKind { kUsage, kHelp };

// The text for `command` ("squeue", "srun", ...); empty for an unknown command.
std::string_view HelpText(std::string_view command, HelpKind kind);

}  // namespace sluice
