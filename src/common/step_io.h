// Framing of a job step's I/O connection between srun and each node's task supervisor
// (sluice-stepd --step). srun listens on TCP; every step node connects, sends kHello
// (task = node index, payload = the step's io_key), then streams:
//   kStdout / kStderr  task = global rank, payload = bytes the task wrote
//   kExit              task = rank, payload = 4-byte big-endian wait status, then
//                      (accounting, u32 each) max RSS kB, CPU ms, and with a node's last
//                      task its GPUs' sampled utilization average/max (%) and memory
//                      average/max (MB); readers decode what they know
//   kNodeDone          all tasks of the node ended; the node closes the connection
// srun -> node: kSignal (payload = 4-byte signal number) delivers a signal to every
// task of the node; kStdin feeds a task's stdin. Closing the connection from srun's side kills the
// node's tasks. Frame = type (1 byte) + task (4 bytes BE) + length (4 bytes BE) + payload.
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
  kStdin = 7,    // srun -> node: bytes for task `task`'s stdin; empty payload = EOF
  kRelay = 8,    // not step I/O: a RelayRequest/RelayReply on the agent's client relay socket
  kAborted = 9,  // node -> srun: the step is being ended (cancel, time limit, requeue);
                 // payload: KillWait seconds (u32), SIGKILL follows that long after SIGTERM.
                 // Sent only to an srun that asked (StepRequest.io_abort_notice): older
                 // readers refuse types they do not know.
};

inline constexpr uint32_t kMaxFramePayload = 1 << 20;

// The job environment variable naming the node agent's client relay socket
// (noded/client_relay.h), through which srun reaches the controller.
inline constexpr char kRelaySocketVar[] = "SLUICE_RELAY_SOCKET";

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

// Reads from blocking `fd` until `reader` has a whole frame: the frame, or kUnavailable
// at EOF or a read error, or the reader's error.
Expected<Frame> ReadFrame(int fd, FrameReader* reader);

// The local IPv4 address of this host's route toward `host`: where srun's step I/O
// listener is reached from the step nodes (127.0.0.1 when unknown).
std::string LocalAddressToward(const std::string& host);

// Writes all of `data` to a blocking socket (MSG_NOSIGNAL). False on error.
bool WriteAll(int fd, std::string_view data);

}  // namespace sluice
