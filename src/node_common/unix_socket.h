// Small Unix-domain socket helpers for the agent<->stepd channels. Paths longer than
// sun_path are reached through /proc/self/fd/<dirfd>/<name>. All fds are CLOEXEC.
//   stepd control: SOCK_SEQPACKET, one request packet -> one reply packet.
//   job-end notification: SOCK_DGRAM to the agent's socket, payload = job id.
//   client relay (noded/client_relay.h): SOCK_STREAM, kRelay frames (common/step_io.h).
#pragma once

#include <sys/types.h>

#include <string>

#include "common/status.h"
#include "stepd.pb.h"

namespace sluice {

// Binds and listens (SOCK_SEQPACKET) at `path`, replacing a stale socket; mode 0600.
Expected<int> ListenSeqpacket(const std::string& path);
// Binds and listens (SOCK_STREAM) at `path`, replacing a stale socket; mode `mode`.
Expected<int> ListenStream(const std::string& path, mode_t mode);
// Binds a SOCK_DGRAM socket at `path`, replacing a stale socket; mode 0600.
Expected<int> BindDatagram(const std::string& path);
// Sends one datagram; fails fast when nobody listens.
Status SendDatagram(const std::string& path, const std::string& payload);

// Client side of the stepd control socket of `job_dir`.
Expected<StepdReply> CallStepd(const std::string& job_dir, const StepdRequest& req,
                               int timeout_ms = 2000);

// Server side: reads one request from an accepted connection / writes the reply.
Status ReadStepdRequest(int fd, StepdRequest* req);
void WriteStepdReply(int fd, const StepdReply& reply);

}  // namespace sluice
