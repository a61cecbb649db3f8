// CliEnv: everything a command touches outside its arguments, so each command is a
// pure function `int RunX(args, CliEnv&)` that tests drive with string streams, a
// fixed environment, a ManualClock and a fake ClientApiInterface. ProcessCliEnv()
// (process_env.h) builds the real one for main().
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>

#include "client/api.h"
#include "common/clock.h"
#include "common/status.h"

namespace sluice {

struct CliEnv {
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  std::istream* in = nullptr;
  std::map<std::string, std::string> environ;  // the caller's environment
  std::string cwd;
  std::string hostname;
  uint32_t uid = 0;
  const Clock* clock = nullptr;
  // Connects on first use; the pointer stays owned by whoever built the CliEnv.
  std::function<Expected<ClientApiInterface*>()> connect;
  // srun inside an allocation: the node agent's client relay at this socket path
  // (client/agent_relay.h); unset in tests that have no agent.
  std::function<Expected<ClientApiInterface*>(const std::string& socket)> connect_relay;
  std::function<void(int64_t ms)> sleep_ms;
  // uid -> user name and back (getpwuid/getpwnam in the real env).
  std::function<std::string(uint32_t)> user_name;
  std::function<Expected<uint32_t>(const std::string&)> user_id;
  int stdin_fd = -1;  // the process's stdin for srun to forward (-1 in tests: none)

  std::string Getenv(const std::string& key) const {
    auto it = environ.find(key);
    return it == environ.end() ? "" : it->second;
  }
};

// Prints a (possibly multi-line) error message as Slurm's commands do: every line as
// "<prog>: error: <line>", the last one after `last_prefix` ("Batch job submission
// failed: "), so "invalid partition specified: x\nInvalid partition name specified" gives
// Slurm's two lines.
void PrintErrorLines(const CliEnv& env, const std::string& prog, const std::string& msg,
                     const std::string& last_prefix = "");

// The version every command prints for --version / -V.
inline constexpr char kSlurmVersion[] = "22.05.8";

}  // namespace sluice
