// How Slurm names node states, derived from NodeInfo (base state + drain flag +
// responding):
//   compact (sinfo %t):  idle mix alloc down drain drng unk, "*" appended when the node
//                        does not respond ("down*", "idle*")
//   long (sinfo %T):     idle mixed allocated down drained draining unknown (+ "*")
//   scontrol State=:     IDLE MIXED ALLOCATED DOWN UNKNOWN (+ "*") (+ "+DRAIN")
#pragma once

#include <string>

#include "types.pb.h"

namespace sluice {

std::string NodeStateCompact(const NodeInfo& n);
std::string NodeStateLong(const NodeInfo& n);
std::string NodeStateScontrol(const NodeInfo& n);
// sinfo's default row order: mixed, allocated, idle, down, unknown.
int NodeStateRank(const NodeInfo& n);
// Down, drained/draining or never registered: its CPUs count as "other".
bool NodeUnavailable(const NodeInfo& n);
// "gpu:8" / "gpu:h100:8"; "(null)" without GPUs. GresUsed: "gpu:4" (allocated count).
std::string NodeGres(const NodeInfo& n);
std::string NodeGresUsed(const NodeInfo& n);
// CfgTRES "cpu=16,mem=62.50G,billing=16,gres/gpu=8"; AllocTRES "cpu=6,mem=6000M,gres/gpu=4"
// ("" when nothing is allocated).
std::string NodeCfgTres(const NodeInfo& n);
std::string NodeAllocTres(const NodeInfo& n);

}  // namespace sluice
