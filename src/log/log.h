// Logs of the daemons: spdlog loggers, one line per event, the ids it is about as
// key=value fields after the event's words, e.g.
//   [2026-12-02T19:20:01.123] [sluicectld] [warning] node not responding, set DOWN node=n3
// A component that reports takes a Logger (never writes std::cerr itself); tests pass
// Null() or a Capture(). The level comes from the config (SlurmctldDebug / SlurmdDebug,
// Slurm's names: quiet, fatal, error, info, verbose, debug, debug2..debug5).
// The commands do not link this library (their start-up time matters).
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::log {

using Logger = std::shared_ptr<spdlog::logger>;
using Level = spdlog::level::level_enum;

// To stderr (the daemons' log files are their redirected stderr).
Logger Stderr(const std::string& name, Level level = Level::info);
// Drops everything.
Logger Null();

// A logger whose lines (the message only, no time or level) are kept for a test to read.
class Capture {
 public:
  explicit Capture(Level level = Level::trace);
  const Logger& logger() const { return logger_; }
  std::vector<std::string> lines() const;

 private:
  Logger logger_;
};

// Slurm's debug level names -> spdlog levels ("" = info). Unknown: InvalidArgument.
Expected<Level> ParseLevel(std::string_view slurm_name);

}  // namespace sluice::log
