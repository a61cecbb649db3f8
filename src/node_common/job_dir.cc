#include "node_common/job_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <google/protobuf/message_lite.h>

namespace sluice {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return Internal(what + " " + path + ": " + std::strerror(errno));
}

Status WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Internal(std::string("write: ") + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

std::atomic<uint64_t> tmp_counter{0};

Status WriteFileAtomic(const std::string& path, const std::string& data, mode_t mode, bool sync) {
  std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++tmp_counter);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Errno("cannot create", tmp);
  Status st = WriteAll(fd, data);
  if (st.ok() && sync && ::fsync(fd) != 0) st = Errno("fsync", tmp);
  ::close(fd);
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) st = Errno("rename", tmp);
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

Expected<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

Status WriteProtoFile(const std::string& path, const google::protobuf::MessageLite& msg,
                      mode_t mode, bool sync) {
  std::string data;
  if (!msg.SerializeToString(&data)) return Internal("cannot serialize " + path);
  return WriteFileAtomic(path, data, mode, sync);
}

Status ReadProtoFile(const std::string& path, google::protobuf::MessageLite* msg) {
  ASSIGN_OR_RETURN(std::string data, ReadSmallFile(path));
  if (!msg->ParseFromString(data)) return InvalidArgument("malformed protobuf file " + path);
  return Status::Ok();
}

Status WritePidFile(const std::string& path, pid_t pid) {
  return WriteFileAtomic(path, std::to_string(pid) + "\n", 0644, false);
}

Expected<pid_t> ReadPidFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string data, ReadSmallFile(path));
  char* end = nullptr;
  long v = std::strtol(data.c_str(), &end, 10);
  if (end == data.c_str() || v <= 0) return InvalidArgument("malformed pid file " + path);
  return static_cast<pid_t>(v);
}

Expected<int> HoldStepdLock(const JobDir& dir) {
  int fd = ::open(dir.LockFile().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", dir.LockFile());
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return FailedPrecondition("another stepd supervises " + dir.path());
  }
  return fd;
}

std::optional<bool> StepdLockHeld(const JobDir& dir) {
  int fd = ::open(dir.LockFile().c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

Status RemoveTree(const std::string& path) {
  DIR* d = ::opendir(path.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return Status::Ok();
    if (errno == ENOTDIR) return ::unlink(path.c_str()) == 0 ? Status::Ok() : Errno("unlink", path);
    return Errno("opendir", path);
  }
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string child = path + "/" + name;
    if (e->d_type == DT_DIR) {
      RemoveTree(child);
    } else {
      ::unlink(child.c_str());
    }
  }
  ::closedir(d);
  if (::rmdir(path.c_str()) != 0 && errno != ENOENT) return Errno("rmdir", path);
  return Status::Ok();
}

}  // namespace sluice
