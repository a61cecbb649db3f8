// IdentServer: listens on a Unix socket; each connecting process gets one line back:
// a credential token for its SO_PEERCRED uid/gid, valid for `ttl_ms`.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/status.h"

namespace sluice {

class IdentServer {
 public:
  IdentServer(std::string socket_path, std::string key, const Clock* clock,
              int64_t ttl_ms = 10 * 60 * 1000);
  ~IdentServer();
  Status Start();  // binds (mode 0666) and starts the accept thread
  void Stop();

 private:
  void Loop();
  std::string path_;
  std::string key_;
  const Clock* clock_;
  int64_t ttl_ms_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Client side: connects to the ident socket and returns the token.
Expected<std::string> FetchCredentialToken(const std::string& socket_path);

}  // namespace sluice
