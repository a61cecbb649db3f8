#include "cli/commit_prompt.h"

#include <poll.h>

#include <cerrno>
#include <istream>
#include <ostream>
#include <string>

namespace sluice {
namespace {

// Whether stdin has a line (or end of input) before the deadline; true when there is
// no descriptor to watch (the stream is read as it is).
bool InputReady(int fd, int64_t timeout_ms) {
  if (fd < 0) return true;
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    int rc = ::poll(&p, 1, static_cast<int>(timeout_ms));
    if (rc < 0 && errno == EINTR) continue;
    return rc > 0;
  }
}

}  // namespace

bool AskCommit(CliEnv& env, int64_t timeout_ms) {
  *env.out << "Would you like to commit changes? (You have " << timeout_ms / 1000
           << " seconds to decide)\n(N/y): " << std::flush;
  if (!env.in || !InputReady(env.stdin_fd, timeout_ms)) {
    *env.out << "\n";
    return false;
  }
  std::string line;
  if (!std::getline(*env.in, line)) return false;
  size_t i = line.find_first_not_of(" \t");
  return i != std::string::npos && (line[i] == 'y' || line[i] == 'Y');
}

}  // namespace sluice
