// IdentServer and FetchCredentialToken: see ident_server.h.
#include "rpc/ident_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "rpc/credential.h"

namespace sluice {

namespace {

constexpr size_t kMaxLine = 1024;

std::string Errno(int err) { return std::strerror(err); }

bool MakeAddress(const std::string& path, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr->sun_path) return false;
  std::memcpy(addr->sun_path, path.c_str(), path.size() + 1);
  return true;
}

// Removes a socket file left behind by an earlier run; anything else at `path` is an error.
Status RemoveStaleSocket(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Internal("Unable to stat " + path + ": " + Errno(errno));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return FailedPrecondition("Refusing to replace " + path + ": it exists and is not a socket");
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Internal("Unable to remove stale socket " + path + ": " + Errno(errno));
  }
  return Status::Ok();
}

Status ContactError(const std::string& path, const std::string& why) {
  return Unavailable("Unable to contact the controller's identity socket " + path + ": " + why);
}

// Waits until `fd` is ready for `events` or the deadline passes; returns 0 or an errno.
int WaitFor(int fd, short events, int64_t deadline_ms) {
  for (;;) {
    int64_t left = deadline_ms - RealClock::MonotonicMs();
    if (left <= 0) return ETIMEDOUT;
    pollfd p{fd, events, 0};
    int r = poll(&p, 1, static_cast<int>(left));
    if (r > 0) return 0;
    if (r == 0) return ETIMEDOUT;
    if (errno != EINTR) return errno;
  }
}

}  // namespace

IdentServer::IdentServer(std::string socket_path, std::string key, const Clock* clock,
                         int64_t ttl_ms)
    : path_(std::move(socket_path)), key_(std::move(key)), clock_(clock), ttl_ms_(ttl_ms) {}

IdentServer::~IdentServer() { Stop(); }

Status IdentServer::Start() {
  if (fd_ >= 0) return FailedPrecondition("Identity server already started");
  sockaddr_un addr;
  if (!MakeAddress(path_, &addr)) return InvalidArgument("Invalid socket path '" + path_ + "'");
  RETURN_IF_ERROR(RemoveStaleSocket(path_));
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Internal("socket: " + Errno(errno));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      chmod(path_.c_str(), 0666) != 0 || listen(fd, 128) != 0) {
    int err = errno;
    close(fd);
    return Internal("Unable to listen on identity socket " + path_ + ": " + Errno(err));
  }
  fd_ = fd;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void IdentServer::Stop() {
  if (fd_ < 0) return;
  stop_ = true;
  shutdown(fd_, SHUT_RDWR);  // wakes a blocked accept() with EINVAL
  if (thread_.joinable()) thread_.join();
  close(fd_);
  fd_ = -1;
  unlink(path_.c_str());
}

void IdentServer::Loop() {
  while (!stop_) {
    int client = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client >= 0) {
      Serve(client);
      close(client);
      continue;
    }
    if (stop_ || errno == EINVAL || errno == EBADF) break;
    if (errno != EINTR && errno != ECONNABORTED) {
      // e.g. EMFILE: back off instead of spinning.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

void IdentServer::Serve(int client) const {
  ucred peer{};
  socklen_t len = sizeof peer;
  if (getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0) return;
  timeval tv{1, 0};
  setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  Credential cred{peer.uid, peer.gid, clock_->NowMs() + ttl_ms_};
  std::string line = SignCredential(key_, cred) + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = send(client, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

namespace {

// Connects the non-blocking `fd`; a Unix socket with a full backlog answers EAGAIN, so
// retry until the deadline. Returns 0 or an errno.
int ConnectBy(int fd, const sockaddr_un& addr, int64_t deadline_ms) {
  for (;;) {
    if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return 0;
    if (errno != EAGAIN && errno != EINTR) return errno;
    if (RealClock::MonotonicMs() >= deadline_ms) return ETIMEDOUT;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Reads until a newline, EOF, kMaxLine bytes or the deadline. Returns 0 or an errno.
int ReadLineBy(int fd, int64_t deadline_ms, std::string* line) {
  char buf[256];
  while (line->find('\n') == std::string::npos && line->size() <= kMaxLine) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) return 0;
    if (n > 0) {
      line->append(buf, static_cast<size_t>(n));
    } else if (errno == EAGAIN || errno == EINTR) {
      if (int err = WaitFor(fd, POLLIN, deadline_ms)) return err;
    } else {
      return errno;
    }
  }
  return 0;
}

}  // namespace

Expected<std::string> FetchCredentialToken(const std::string& socket_path, int timeout_ms) {
  sockaddr_un addr;
  if (!MakeAddress(socket_path, &addr)) return ContactError(socket_path, "invalid socket path");
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ContactError(socket_path, Errno(errno));
  const int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  std::string line;
  int err = ConnectBy(fd, addr, deadline);
  if (!err) err = ReadLineBy(fd, deadline, &line);
  close(fd);
  if (err) return ContactError(socket_path, Errno(err));
  size_t nl = line.find('\n');
  if (nl == std::string::npos) {
    return ContactError(
        socket_path, line.empty() ? "connection closed without a credential" : "malformed reply");
  }
  line.resize(nl);
  if (line.empty()) return ContactError(socket_path, "empty credential");
  return line;
}

}  // namespace sluice
