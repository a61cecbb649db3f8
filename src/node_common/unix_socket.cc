#include "node_common/unix_socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "node_common/job_dir.h"

namespace sluice {
namespace {

constexpr size_t kMaxPacket = 64 * 1024;

// Resolves `path` to a sockaddr; keeps a directory fd open when the path is too long.
class SockAddr {
 public:
  explicit SockAddr(const std::string& path) {
    std::memset(&addr_, 0, sizeof addr_);
    addr_.sun_family = AF_UNIX;
    std::string p = path;
    if (p.size() >= sizeof(addr_.sun_path)) {
      size_t slash = p.rfind('/');
      std::string dir = slash == std::string::npos ? "." : p.substr(0, slash);
      dirfd_ = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      p = "/proc/self/fd/" + std::to_string(dirfd_) + "/" + p.substr(slash + 1);
    }
    ok_ = p.size() < sizeof(addr_.sun_path);
    if (ok_) std::memcpy(addr_.sun_path, p.c_str(), p.size() + 1);
    path_ = p;
  }
  ~SockAddr() {
    if (dirfd_ >= 0) ::close(dirfd_);
  }
  bool ok() const { return ok_; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&addr_); }
  socklen_t len() const { return sizeof addr_; }
  const std::string& path() const { return path_; }

 private:
  sockaddr_un addr_;
  int dirfd_ = -1;
  bool ok_ = false;
  std::string path_;
};

Status Errno(const std::string& what, const std::string& path) {
  return Unavailable(what + " " + path + ": " + std::strerror(errno));
}

Expected<int> BindAt(const std::string& path, int type, mode_t mode = 0600) {
  SockAddr addr(path);
  if (!addr.ok()) return InvalidArgument("socket path too long: " + path);
  int fd = ::socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("socket", path);
  ::unlink(addr.path().c_str());
  if (::bind(fd, addr.get(), addr.len()) != 0) {
    Status st = Errno("bind", path);
    ::close(fd);
    return st;
  }
  ::chmod(addr.path().c_str(), mode);
  return fd;
}

void SetTimeouts(int fd, int timeout_ms) {
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

Expected<int> ListenAt(const std::string& path, int type, mode_t mode) {
  ASSIGN_OR_RETURN(int fd, BindAt(path, type, mode));
  if (::listen(fd, 128) != 0) {
    ::close(fd);
    return Errno("listen", path);
  }
  return fd;
}

}  // namespace

Expected<int> ListenSeqpacket(const std::string& path) {
  return ListenAt(path, SOCK_SEQPACKET, 0600);
}

Expected<int> ListenStream(const std::string& path, mode_t mode) {
  return ListenAt(path, SOCK_STREAM, mode);
}

Expected<int> BindDatagram(const std::string& path) { return BindAt(path, SOCK_DGRAM); }

Status SendDatagram(const std::string& path, const std::string& payload) {
  SockAddr addr(path);
  if (!addr.ok()) return InvalidArgument("socket path too long: " + path);
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Errno("socket", path);
  ssize_t n = ::sendto(fd, payload.data(), payload.size(), 0, addr.get(), addr.len());
  Status st = n < 0 ? Errno("sendto", path) : Status::Ok();
  ::close(fd);
  return st;
}

Expected<StepdReply> CallStepd(const std::string& job_dir, const StepdRequest& req,
                               int timeout_ms) {
  std::string path = JobDir(job_dir).Socket();
  SockAddr addr(path);
  if (!addr.ok()) return InvalidArgument("socket path too long: " + path);
  int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("socket", path);
  SetTimeouts(fd, timeout_ms);
  std::string out, in(kMaxPacket, '\0');
  req.SerializeToString(&out);
  Status st;
  ssize_t n = -1;
  if (::connect(fd, addr.get(), addr.len()) != 0) {
    st = Errno("connect", path);
  } else if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) < 0) {
    st = Errno("send", path);
  } else if ((n = ::recv(fd, in.data(), in.size(), 0)) <= 0) {
    st = n == 0 ? Unavailable("stepd closed " + path) : Errno("recv", path);
  }
  ::close(fd);
  if (!st.ok()) return st;
  StepdReply reply;
  if (!reply.ParseFromArray(in.data(), static_cast<int>(n))) {
    return Internal("malformed reply from stepd at " + path);
  }
  return reply;
}

Status ReadStepdRequest(int fd, StepdRequest* req) {
  SetTimeouts(fd, 1000);
  std::string in(kMaxPacket, '\0');
  ssize_t n = ::recv(fd, in.data(), in.size(), 0);
  if (n <= 0) return Unavailable("no request");
  if (!req->ParseFromArray(in.data(), static_cast<int>(n)))
    return InvalidArgument("malformed request");
  return Status::Ok();
}

void WriteStepdReply(int fd, const StepdReply& reply) {
  std::string out;
  reply.SerializeToString(&out);
  ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
}

}  // namespace sluice
