#include "common/pid_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sluice {
namespace {

pid_t ReadPid(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? static_cast<pid_t>(std::atol(buf)) : 0;
}

}  // namespace

Expected<PidLock> PidLock::Acquire(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const pid_t other = ReadPid(fd);
    ::close(fd);
    if (err != EWOULDBLOCK) return Internal("cannot lock " + path + ": " + std::strerror(err));
    return FailedPrecondition(path + " is held by pid " + std::to_string(other));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int err = errno;
    ::close(fd);
    return Internal("cannot write " + path + ": " + std::strerror(err));
  }
  return PidLock(fd);
}

pid_t PidLock::Holder(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  pid_t pid = 0;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    pid = ReadPid(fd);
    if (pid <= 0) pid = -1;
  }
  ::close(fd);  // drops a shared lock we may have taken
  return pid;
}

PidLock::~PidLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace sluice
