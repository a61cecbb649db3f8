// Framing of a job step's I/O connection between srun and each node's task supervisor
// (sluice-stepd --step). srun listens on TCP; every step node connects, sends kHello
// (task = node index, payload = the step's io_key), then streams:
//   kStdout / kStderr  task = global rank, payload = bytes the task wrote
//   kExit              task = rank, payload = 4-byte big-endian wait status
//   kNodeDone          all tasks of the node ended; the node closes the connection
// srun -> node: kSignal (payload = 4-byte signal number) delivers a signal to every
// task of the node; kStdin feeds a task's stdin. Closing the connection from srun's side kills the node's tasks.
// Frame = type (1 byte) + task (4 bytes BE) + length (4 bytes BE) + payload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice {

enum class FrameType : uint8_t {
  kHello = 1,
  kStdout = 2,
  kStderr = 3,
  kExit = 4,
  kNodeDone = 5,
  kSignal = 6,
  kStdin = 7,      // srun -> node: bytes for task `task`'s stdin; empty payload = EOF
};

inline constexpr uint32_t kMaxFramePayload = 1 << 20;

struct Frame {
  FrameType type = FrameType::kHello;
  uint32_t task = 0;
  std::string payload;
};

std::string EncodeFrame(FrameType type, uint32_t task, std::string_view payload);
std::string EncodeU32(uint32_t v);
uint32_t DecodeU32(std::string_view bytes);  // first 4 bytes, big-endian (0 if short)

// Accumulates bytes from a stream and yields complete frames.
class FrameReader {
 public:
  void Append(std::string_view data) { buf_.append(data); }
  // The next complete frame, nullopt when more bytes are needed; an error for an
  // unknown type or an oversized payload (the stream is then unusable).
  Expected<std::optional<Frame>> Next();

 private:
  std::string buf_;
  size_t pos_ = 0;
};

// Writes all of `data` to a blocking socket (MSG_NOSIGNAL). False on error.
bool WriteAll(int fd, std::string_view data);

}  // namespace sluice
