// TRESBillingWeights (slurm.conf): "CPU=1.0,Mem=0.25G,GRES/gpu=4.0". A job's billing
// is the sum over TRES of weight * allocated amount (Slurm's default, without
// PriorityFlags=MAX_TRES). Mem weights are per MB unless suffixed K/M/G/T (per that
// unit, e.g. Mem=0.25G is 0.25 per GB). GRES/gpu applies to every GPU type; a typed
// GRES/gpu:h100 weight is accepted and applied to GPUs of that type instead. Node=
// weighs allocated nodes. An empty string means "billing = allocated CPUs", as Slurm.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice {

struct TresBillingWeights {
  bool configured = false;
  double cpu = 0;
  double mem_per_mb = 0;
  double node = 0;
  double gpu = 0;                          // GRES/gpu
  std::map<std::string, double> gpu_type;  // GRES/gpu:<type>
};

struct TresAlloc {
  int64_t cpus = 0;
  int64_t mem_mb = 0;
  int64_t nodes = 0;
  int64_t gpus = 0;
  std::string gpu_type;
};

// Errors: "invalid TRESBillingWeights '<s>': <why>".
Expected<TresBillingWeights> ParseTresBillingWeights(std::string_view s);
// The billing value of one allocation.
double TresBilling(const TresBillingWeights& w, const TresAlloc& a);

}  // namespace sluice
