// The protocol version Sluice's daemons and commands speak to each other, for rolling
// upgrades: every node message carries its sender's (NodeAuth.protocol) and every command's
// call its client's (gRPC metadata "sluice-protocol"). A receiver serves a peer one version
// older or newer than itself and refuses any other with a message naming both versions, so
// a cluster is upgraded one version at a time, agents before or after the controllers,
// with jobs running throughout.
//
// Bump kProtocolVersion when a change means peers must tell each other apart (a field whose
// absence an older peer would misread, a new call an older peer lacks), and keep serving
// the previous version's messages for one release. Senders from before versions were
// carried (no field, no header) are version 1.
#pragma once

#include <string_view>

#include "common/status.h"

namespace sluice {

inline constexpr int kProtocolVersion = 2;
inline constexpr char kProtocolMetadataKey[] = "sluice-protocol";

// The version this process speaks: kProtocolVersion, except in the upgrade-drill builds of
// the agent (sluiced-proto-*, tests only), which speak a neighbour's.
int SpokenProtocol();
void SpeakProtocol(int version);

// A peer's version from what it sent (0 or absent: 1).
int PeerProtocol(int sent);
int PeerProtocol(std::string_view header);  // "" (absent) or a number

// OK when `peer` is within one of SpokenProtocol(); else FailedPrecondition:
// "<who> speaks protocol 4; this <self> speaks 2 and serves 1 to 3: upgrade one version
// at a time".
Status CheckPeerProtocol(int peer, std::string_view who, std::string_view self);

}  // namespace sluice
