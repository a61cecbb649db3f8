// Slurm's textual formats for times, durations, memory sizes and GPU (gres) specs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

inline constexpr int64_t kUnlimited = -1;

// --time / MaxTime / DefaultTime: "minutes", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM",
// "D-HH:MM:SS", "UNLIMITED"/"INFINITE"/"-1". Returns minutes (seconds round up), or
// kUnlimited. Error message: "Invalid --time specification" style left to callers.
Expected<int64_t> ParseTimeLimitMinutes(std::string_view s);

// Minutes as Slurm prints limits: "UNLIMITED", "1:00", "1-00:00:00", "00:05:00" style
// (FormatLimit: as in squeue %l); FormatDuration(seconds) as in squeue %M ("0:02",
// "1:27", "1:02:03", "2-01:02:03"); FormatHms(seconds) always "HH:MM:SS" or "D-HH:MM:SS"
// (scontrol RunTime=/TimeLimit=).
std::string FormatLimitMinutes(int64_t minutes);
std::string FormatDuration(int64_t seconds);
std::string FormatHms(int64_t seconds);
std::string FormatHmsLimit(int64_t minutes);  // "UNLIMITED" or FormatHms(minutes*60)

// Timestamps as Slurm prints them: "2026-11-30T02:26:13" (local time), "Unknown" for 0.
std::string FormatTimestamp(int64_t unix_s);
// sinfo partition time limit: "infinite", "1:00:00", "1-00:00:00".
std::string FormatSinfoLimit(int64_t minutes);

// --mem sizes: number with optional K/M/G/T suffix (default M). Returns MiB (rounded up).
Expected<int64_t> ParseMemoryMb(std::string_view s);
// "1000M", "62.50G" as in TRES strings.
std::string FormatMemoryMb(int64_t mb);

// --gres: "gpu:8", "gpu:h100:8", "gpu", "gpu:h100:2,gpu:a100:1". Count defaults to 1.
struct GresSpec {
  std::string name;
  std::string type;
  int64_t count = 1;
  bool operator==(const GresSpec&) const = default;
};
Expected<std::vector<GresSpec>> ParseGres(std::string_view s);
// --gpus / --gpus-per-node / --gpus-per-task: "8", "h100:8", "gpu:h100:8".
Expected<GresSpec> ParseGpuCount(std::string_view s);

// Signal names and numbers: "USR1", "SIGUSR1", "10" -> 10.
Expected<int> ParseSignal(std::string_view s);
std::string SignalName(int sig);  // 10 -> "USR1"

}  // namespace sluice
