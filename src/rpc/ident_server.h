// IdentServer: listens on a Unix socket; each connecting process gets one line back:
// a credential token for its SO_PEERCRED uid/gid, valid for `ttl_ms` (see credential.h).
// Start() removes a stale socket left by a previous run (refusing to remove anything
// that is not a socket), binds with mode 0666 and starts one accept thread; each
// connection is answered inline (a few microseconds). Stop() shuts the listening
// socket down, which unblocks accept(), joins the thread and removes the socket file;
// it is idempotent and also run by the destructor. The socket's directory must be
// searchable by every user who should be able to fetch a credential.
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
  void Serve(int client) const;
  std::string path_;
  std::string key_;
  const Clock* clock_;
  int64_t ttl_ms_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Client side: connects to the ident socket and returns the token (without the newline).
// Gives up after `timeout_ms` in total; errors are kUnavailable and read
// "Unable to contact the controller's identity socket <path>: <reason>".
Expected<std::string> FetchCredentialToken(const std::string& socket_path, int timeout_ms = 2000);

}  // namespace sluice
