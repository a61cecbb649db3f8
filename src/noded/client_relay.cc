#include "noded/client_relay.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/step_io.h"
#include "node_common/unix_socket.h"

namespace sluice {
namespace {

constexpr size_t kMaxConnections = 512;  // one per srun on this node; more is an abuse

}  // namespace

ClientRelay::~ClientRelay() { Stop(); }

Status ClientRelay::Start(const std::string& path, Handler handler) {
  handler_ = std::move(handler);
  ASSIGN_OR_RETURN(listen_fd_, ListenStream(path, 0666));
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return Internal(std::string("eventfd: ") + std::strerror(errno));
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::Ok();
}

void ClientRelay::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (Conn& c : conns_) ::shutdown(c.fd, SHUT_RDWR);  // wakes their reads
  }
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    (void)::write(wake_fd_, &one, sizeof one);
  }
  if (acceptor_.joinable()) acceptor_.join();
  for (Conn& c : conns_) {
    if (c.thread.joinable()) c.thread.join();
    ::close(c.fd);
  }
  conns_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

void ClientRelay::AcceptLoop() {
  for (;;) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return;
    if (p[1].revents != 0) return;
    if ((p[0].revents & POLLIN) == 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    ReapDone();
    if (stopping_) {
      ::close(fd);
      return;
    }
    if (conns_.size() >= kMaxConnections) {
      ::close(fd);
      continue;
    }
    Conn& c = conns_.emplace_back();
    c.fd = fd;
    c.thread = std::thread([this, &c] { Serve(&c); });
  }
}

void ClientRelay::ReapDone() {
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (!it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    ::close(it->fd);
    it = conns_.erase(it);
  }
}

void ClientRelay::Serve(Conn* c) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
    FrameReader reader;
    for (;;) {
      Expected<Frame> f = ReadFrame(c->fd, &reader);
      RelayRequest req;
      if (!f.ok() || f->type != FrameType::kRelay || !req.ParseFromString(f->payload)) break;
      req.set_uid(cred.uid);
      req.set_gid(cred.gid);
      RelayReply reply = handler_(std::move(req));
      if (!WriteAll(c->fd, EncodeFrame(FrameType::kRelay, 0, reply.SerializeAsString()))) break;
    }
  }
  ::shutdown(c->fd, SHUT_RDWR);
  c->done = true;
}

}  // namespace sluice
