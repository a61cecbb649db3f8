#include "log/log.h"

#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <utility>

namespace sluice::log {

Logger Stderr(const std::string& name, Level level) {
  auto logger =
      std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] [%n] [%l] %v");
  logger->set_level(level);
  logger->flush_on(Level::trace);  // a crash must not lose the lines before it
  return logger;
}

Logger Null() {
  return std::make_shared<spdlog::logger>("null", std::make_shared<spdlog::sinks::null_sink_mt>());
}

namespace {

// Keeps each formatted line.
class LineSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    lines_.emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override {}

 private:
  std::vector<std::string> lines_;
};

}  // namespace

Capture::Capture(Level level) {
  logger_ = std::make_shared<spdlog::logger>("capture", std::make_shared<LineSink>());
  logger_->set_level(level);
}

std::vector<std::string> Capture::lines() const {
  return static_cast<LineSink*>(logger_->sinks().front().get())->lines();
}

Expected<Level> ParseLevel(std::string_view name) {
  // In Slurm's order: a number 0-9 is an index into it (scontrol setdebug 5 = debug).
  static constexpr std::array<std::pair<std::string_view, Level>, 10> kLevels{{
      {"quiet", Level::off},
      {"fatal", Level::critical},
      {"error", Level::err},
      {"info", Level::info},
      {"verbose", Level::info},
      {"debug", Level::debug},
      {"debug2", Level::trace},
      {"debug3", Level::trace},
      {"debug4", Level::trace},
      {"debug5", Level::trace},
  }};
  if (name.empty()) return Level::info;
  if (name.size() == 1 && name[0] >= '0' && name[0] <= '9') return kLevels[name[0] - '0'].second;
  for (const auto& [n, level] : kLevels) {
    if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
          return a == std::tolower(static_cast<unsigned char>(b));
        }))
      return level;
  }
  return InvalidArgument("invalid debug level: " + std::string(name));
}

}  // namespace sluice::log
