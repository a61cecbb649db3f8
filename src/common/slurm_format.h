// Slurm's textual formats for times, durations, memory sizes, GPU (gres) specs,
// signals and output file name patterns. Parsers return InvalidArgument with a message
// that quotes the input; callers may prefix it with Slurm's own wording.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

inline constexpr int64_t kUnlimited = -1;

// --time / MaxTime / DefaultTime: "minutes", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM",
// "D-HH:MM:SS", "UNLIMITED"/"INFINITE"/"-1" (case-insensitive). Returns minutes
// (seconds round up: "0:30" -> 1), or kUnlimited. "0" is returned as 0 (callers
// decide what a zero limit means). Fields are not range-checked ("90" and "90:00"
// are both accepted, like Slurm). Malformed -> "Invalid time limit '<s>'".
Expected<int64_t> ParseTimeLimitMinutes(std::string_view s);

// FormatDuration(seconds), as squeue %M/%l and sinfo print: "0:02", "1:27", "1:02:03",
// "2-01:02:03"; "INVALID" when negative.
// FormatLimitMinutes(minutes): squeue %l: "UNLIMITED" for kUnlimited (any negative),
// else FormatDuration(minutes*60) ("1:00" for 1 minute, "1:00:00" for 60).
// FormatHms(seconds): scontrol RunTime=/TimeLimit=: always "HH:MM:SS" or
// "D-HH:MM:SS" ("00:01:27", "1-00:00:00"); "INVALID" when negative.
// FormatHmsLimit(minutes): "UNLIMITED" (negative) or FormatHms(minutes*60).
std::string FormatLimitMinutes(int64_t minutes);
std::string FormatDuration(int64_t seconds);
std::string FormatHms(int64_t seconds);
std::string FormatHmsLimit(int64_t minutes);

// Timestamps as Slurm prints them: "2026-11-30T02:26:13" (local time), "Unknown" for
// 0 or negative.
std::string FormatTimestamp(int64_t unix_s);
// sinfo partition time limit: "infinite" (negative), else FormatDuration(minutes*60):
// "30:00", "1:00:00", "1-00:00:00".
std::string FormatSinfoLimit(int64_t minutes);

// The one size grammar (Slurm's str_to_mbytes), for every size option and config value
// (--mem, --mem-per-cpu, --mem-per-gpu, --tmp, RealMemory, TmpDisk, DefMemPerCPU, TRES
// mem=): [blanks][+|-]digits[unit], unit one of K M G T in either case, optionally
// followed by B or b ("1GB", "512mb", "4g", "100"); no unit = MiB. Returns MiB (K rounds
// up: "1K" -> 1). Refused (InvalidArgument "Invalid memory size '<s>'"; callers word it
// as Slurm does, e.g. "Invalid --mem specification"): no digits, a negative number ("-0"
// is 0, as strtoll), fractions ("1.5G"), a bare "B", "GiB", other units, anything after
// the unit (trailing blanks too), values that overflow. "0" is returned as 0: --mem=0
// means all the memory of the node, which the caller decides.
Expected<int64_t> ParseMemoryMb(std::string_view s);
// As in TRES strings: MiB converted to the largest unit (G, T, P) while the value stays
// a multiple of 512 before dividing by 1024: 1000 -> "1000M", 6000 -> "6000M",
// 64000 -> "62.50G", 256000 -> "250G", 1048576 -> "1T". Fractions print with 2 decimals.
std::string FormatMemoryMb(int64_t mb);

// --gres: "gpu", "gpu:8", "gpu:h100:8", "gpu:h100:2,gpu:a100:1" (a "gres/" prefix is
// accepted). Count defaults to 1; a count of 0, negative or not a number -> error.
// An empty string gives an empty list.
struct GresSpec {
  std::string name;
  std::string type;
  int64_t count = 1;
  bool operator==(const GresSpec&) const = default;
};
Expected<std::vector<GresSpec>> ParseGres(std::string_view s);
// --gpus / --gpus-per-node / --gpus-per-task: "8", "h100:8", "gpu:8", "gpu:h100:8"
// -> name "gpu". 0 is accepted (no GPUs); negative or non-numeric -> error.
Expected<GresSpec> ParseGpuCount(std::string_view s);

// Signal names (case-insensitive, with or without "SIG") and numbers 1..64:
// "USR1", "SIGUSR1", "sigusr1", "10" -> 10. Unknown -> "Invalid signal '<s>'".
Expected<int> ParseSignal(std::string_view s);
std::string SignalName(int sig);  // 10 -> "USR1"; unnamed numbers -> "<n>"

// Per-node counts as in SLURM_TASKS_PER_NODE / SLURM_JOB_CPUS_PER_NODE: runs of equal
// values become "v(xN)": {2,2} -> "2(x2)", {3,3,1} -> "3(x2),1", {1} -> "1", {} -> "".
std::string FormatRepeatedCounts(const std::vector<int64_t>& counts);

// Output/error file name patterns (sbatch -o/-e, srun -o):
//   %j job id, %x job name, %u user, %N node name, %A array master job id (job id for
//   a non-array job), %a array task id (4294967294 for a non-array job, as Slurm),
//   %b task id % 10, %J job id or "<job>.<step>", %s step ("batch" or the step id),
//   %t task rank, %n node index (relative to the job), %% a literal '%'.
// A number between % and the letter zero-pads numeric fields ("%5j" -> 00042).
// Fields whose value is unset (empty node; step/task/node index < 0 for %t/%n) and
// unknown sequences are left as written, so a later stage (the step's tasks) can
// expand them ("%%" becomes "%" at once, so a two-stage expansion should avoid it).
// A pattern containing '\' is not expanded; its backslashes are removed.
struct PatternVars {
  int64_t job_id = 0;
  std::string job_name;
  std::string user;
  std::string node;
  int64_t array_job_id = 0;    // 0 = not an array job
  int64_t array_task_id = -1;  // -1 = not an array job
  int64_t step_id = -1;        // -1 = batch step
  int64_t task_id = -1;        // -1 = unknown (leave %t)
  int64_t node_index = -1;     // -1 = unknown (leave %n)
};
inline constexpr int64_t kNoArrayTaskId = 4294967294;
std::string ExpandOutputPattern(std::string_view pattern, const PatternVars& v);

}  // namespace sluice
