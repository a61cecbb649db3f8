// AskCommit: sacctmgr's confirmation before it commits a change (without -i). Prints
// "Would you like to commit changes? (You have 30 seconds to decide)" and "(N/y): " on
// env.out, then reads one line of env.in: true only for an answer starting with 'y'/'Y'.
// Anything else, end of input, or no answer within `timeout_ms` (checked with poll() on
// env.stdin_fd when it is >= 0; tests leave it -1 and answer through the stream) is a no.
#pragma once

#include <cstdint>

#include "cli/cli_env.h"

namespace sluice {

inline constexpr int64_t kCommitPromptTimeoutMs = 30000;

bool AskCommit(CliEnv& env, int64_t timeout_ms = kCommitPromptTimeoutMs);

}  // namespace sluice
