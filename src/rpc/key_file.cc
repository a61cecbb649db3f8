// LoadClusterKey: reading, permission checks and atomic creation of the cluster key.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "rpc/credential.h"

namespace sluice {

namespace {

constexpr size_t kKeyBytes = 32;
constexpr size_t kMinKeyChars = 32;
constexpr size_t kMaxKeyFileBytes = 4096;

std::string Errno(int err) { return std::strerror(err); }

std::string ModeString(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

Status WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Internal(Errno(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Writes a fresh key to a private temp file and links it into place. Losing a race
// with another creator is fine: their key stays and we read it.
Status CreateKeyFile(const std::string& path) {
  std::string tmp = path + ".tmpXXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    return Internal("Unable to create cluster key file " + path + ": " + Errno(errno));
  }
  Status st = fchmod(fd, 0600) == 0 ? Status::Ok() : Internal(Errno(errno));
  if (st.ok()) st = WriteAll(fd, HexEncode(RandomBytes(kKeyBytes)) + "\n");
  if (st.ok() && fsync(fd) != 0) st = Internal(Errno(errno));
  close(fd);
  if (st.ok() && link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    st = Internal(Errno(errno));
  }
  unlink(tmp.c_str());
  if (!st.ok()) {
    return Internal("Unable to create cluster key file " + path + ": " + st.message());
  }
  return Status::Ok();
}

std::string Trim(const std::string& s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

Expected<std::string> ReadKeyFd(const std::string& path, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return Internal("Unable to stat " + path + ": " + Errno(errno));
  if (!S_ISREG(st.st_mode)) {
    return PermissionDenied("Cluster key file " + path + " is not a regular file");
  }
  if (st.st_mode & 077) {
    return PermissionDenied("Cluster key file " + path + " has mode " + ModeString(st.st_mode) +
                            ": it must not be readable or writable by group or others "
                            "(run: chmod 600 " +
                            path + ")");
  }
  if (geteuid() == 0 && st.st_uid != 0) {
    return PermissionDenied("Cluster key file " + path + " is owned by uid " +
                            std::to_string(st.st_uid) +
                            ": a daemon running as root only trusts a key file owned by root "
                            "(run: chown root " +
                            path + ")");
  }
  std::string data(kMaxKeyFileBytes + 1, '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Internal("Unable to read " + path + ": " + Errno(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > kMaxKeyFileBytes) return InvalidArgument("Cluster key file " + path + " is too large");
  std::string key = Trim(data.substr(0, got));
  if (key.size() < kMinKeyChars) {
    return InvalidArgument("Cluster key file " + path + " is too short (" +
                           std::to_string(key.size()) + " characters, need at least " +
                           std::to_string(kMinKeyChars) + ")");
  }
  return key;
}

}  // namespace

Expected<std::string> LoadClusterKey(const std::string& path, bool create) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    RETURN_IF_ERROR(CreateKeyFile(path));
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFound("Cluster key file " + path + " does not exist");
    return Internal("Unable to open cluster key file " + path + ": " + Errno(err));
  }
  auto key = ReadKeyFd(path, fd);
  close(fd);
  return key;
}

}  // namespace sluice
