// ClientRelay: the node agent's Unix socket for clients on its node. srun inside an
// allocation finds it as SLUICE_RELAY_SOCKET (set in the job's environment) and sends its
// LaunchStep/Keepalive calls here instead of opening a gRPC channel of its own: the agent
// forwards them on its warm, signed channel (NodeApi Relay), which takes ~2 ms off every
// step (bench/RESULTS.md, "Step launch").
//
// Each connection carries kRelay frames (common/step_io.h): a RelayRequest from the
// client, answered in order by a RelayReply. The client's uid/gid come from the socket
// (SO_PEERCRED) and overwrite whatever the request said, so a process speaks only for
// itself; the controller accepts a relay only for a job allocated on this node. One
// thread per connection (each srun holds one; at most 512 at once, further ones are
// closed at once); a malformed frame closes the connection.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"
#include "node.pb.h"

namespace sluice {

class ClientRelay {
 public:
  // Answers one request; `req` already carries the client's uid/gid.
  using Handler = std::function<RelayReply(RelayRequest req)>;

  ClientRelay() = default;
  ~ClientRelay();
  ClientRelay(const ClientRelay&) = delete;
  ClientRelay& operator=(const ClientRelay&) = delete;

  // Listens at `path` (mode 0666: any local user may connect).
  Status Start(const std::string& path, Handler handler);
  // Closes the socket and every connection, waiting for calls in progress.
  void Stop();

 private:
  struct Conn {
    int fd = -1;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void AcceptLoop();
  void Serve(Conn* c);
  void ReapDone();  // joins finished connections; mu_ held

  Handler handler_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: Stop wakes the accept loop
  std::thread acceptor_;
  std::mutex mu_;
  bool stopping_ = false;
  std::list<Conn> conns_;
};

}  // namespace sluice
