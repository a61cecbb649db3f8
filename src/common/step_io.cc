#include "common/step_io.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sluice {

std::string EncodeU32(uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
  return out;
}

uint32_t DecodeU32(std::string_view b) {
  if (b.size() < 4) return 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

std::string EncodeFrame(FrameType type, uint32_t task, std::string_view payload) {
  std::string out;
  out.reserve(9 + payload.size());
  out.push_back(static_cast<char>(type));
  out += EncodeU32(task);
  out += EncodeU32(static_cast<uint32_t>(payload.size()));
  out.append(payload);
  return out;
}

Expected<std::optional<Frame>> FrameReader::Next() {
  std::string_view rest(buf_.data() + pos_, buf_.size() - pos_);
  if (rest.size() < 9) return std::optional<Frame>();
  uint8_t type = static_cast<uint8_t>(rest[0]);
  if (type < 1 || type > static_cast<uint8_t>(FrameType::kAborted)) {
    return InvalidArgument("bad frame type " + std::to_string(type));
  }
  uint32_t len = DecodeU32(rest.substr(5));
  if (len > kMaxFramePayload) return InvalidArgument("frame too large");
  if (rest.size() < 9 + len) return std::optional<Frame>();
  Frame f{static_cast<FrameType>(type), DecodeU32(rest.substr(1)),
          std::string(rest.substr(9, len))};
  pos_ += 9 + len;
  if (pos_ > 65536 && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return std::optional<Frame>(std::move(f));
}

Expected<Frame> ReadFrame(int fd, FrameReader* reader) {
  char buf[16384];
  for (;;) {
    ASSIGN_OR_RETURN(std::optional<Frame> f, reader->Next());
    if (f) return std::move(*f);
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable(n == 0 ? "connection closed" : std::strerror(errno));
    reader->Append(std::string_view(buf, static_cast<size_t>(n)));
  }
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string LocalAddressToward(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), "9", &hints, &res) != 0 || !res) return "127.0.0.1";
  std::string out = "127.0.0.1";
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
    char buf[INET_ADDRSTRLEN];
    if (::inet_ntop(AF_INET, &local.sin_addr, buf, sizeof buf)) out = buf;
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(res);
  return out;
}

}  // namespace sluice
