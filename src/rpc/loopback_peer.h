// The uid that owns the other end of a TCP connection made on this host, as identd
// answers it: the client's socket is found in /proc/net/tcp (IPv4) by its address and
// port and the server's, and its owner's uid read from there. For HTTP endpoints that
// let local root in without a token (metrics). Works only for peers on this host (the
// same network namespace); nullopt for any other peer or when the socket is gone.
//   LoopbackPeerUid("127.0.0.1", 51234, "127.0.0.1", 9100) -> 0 (curl run by root)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

std::optional<uint32_t> LoopbackPeerUid(const std::string& peer_addr, int peer_port,
                                        const std::string& local_addr, int local_port);
// The lookup itself, over the text of /proc/net/tcp.
std::optional<uint32_t> SocketOwnerIn(std::string_view proc_net_tcp, const std::string& from_addr,
                                      int from_port, const std::string& to_addr, int to_port);

}  // namespace sluice
