#include "client/agent_relay.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "client/cluster_client.h"
#include "rpc/request_limits.h"

namespace sluice {
namespace {

Expected<int> ConnectUnix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    return InvalidArgument("bad relay socket path");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable(std::strerror(errno));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    Status st = Unavailable("connect " + path + ": " + std::strerror(errno));
    ::close(fd);
    return st;
  }
  return fd;
}

}  // namespace

Expected<std::unique_ptr<AgentRelayClient>> AgentRelayClient::Connect(const std::string& path) {
  ASSIGN_OR_RETURN(int fd, ConnectUnix(path));
  return std::unique_ptr<AgentRelayClient>(new AgentRelayClient(path, fd));
}

AgentRelayClient::~AgentRelayClient() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<RelayReply> AgentRelayClient::Call(const RelayRequest& req) {
  RETURN_IF_ERROR(CheckBeforeSending(req));
  std::string frame = EncodeFrame(FrameType::kRelay, 0, req.SerializeAsString());
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0 || !WriteAll(fd_, frame)) {  // the agent restarted since the last call
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    reader_ = FrameReader();
    Expected<int> fd = ConnectUnix(path_);
    if (!fd.ok() || !WriteAll(*fd, frame)) {
      if (fd.ok()) ::close(*fd);
      return Unavailable(kConnectFailure);
    }
    fd_ = *fd;
  }
  Expected<Frame> f = ReadFrame(fd_, &reader_);
  RelayReply reply;
  if (!f.ok() || f->type != FrameType::kRelay || !reply.ParseFromString(f->payload)) {
    ::close(fd_);
    fd_ = -1;
    return Unavailable(kLostReply);  // sent: the agent may have forwarded it
  }
  Status st =
      StatusFromGrpc(grpc::Status(static_cast<grpc::StatusCode>(reply.code()), reply.error()));
  if (!st.ok()) return st;
  return reply;
}

Expected<StepReply> AgentRelayClient::LaunchStep(const StepRequest& req) {
  RelayRequest r;
  *r.mutable_launch_step() = req;
  ASSIGN_OR_RETURN(RelayReply reply, Call(r));
  return std::move(*reply.mutable_step());
}

Expected<KeepaliveReply> AgentRelayClient::Keepalive(const KeepaliveRequest& req) {
  RelayRequest r;
  *r.mutable_keepalive() = req;
  RETURN_IF_ERROR(Call(r).status());
  return KeepaliveReply();
}

}  // namespace sluice
