#include "noded/end_listener.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "node_common/unix_socket.h"

namespace sluice {

EndListener::~EndListener() { Stop(); }

Status EndListener::Start(const std::string& path, std::function<void()> on_end) {
  ASSIGN_OR_RETURN(fd_, BindDatagram(path));
  thread_ = std::thread([this, on_end = std::move(on_end)] {
    char buf[256];
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 200) <= 0) continue;
      bool any = false;
      while (::recv(fd_, buf, sizeof buf, MSG_DONTWAIT) > 0) any = true;
      if (any) on_end();
    }
  });
  return Status::Ok();
}

void EndListener::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace sluice
