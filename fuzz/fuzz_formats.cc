// The small Slurm value parsers users type on command lines and in #SBATCH lines: time
// limits, memory sizes, gres, signals, --signal specs, --array and --dependency specs,
// TRESBillingWeights. The first byte picks the parser; none may crash or hang.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/array_spec.h"
#include "common/dependency_spec.h"
#include "common/signal_spec.h"
#include "common/slurm_format.h"
#include "common/tres_billing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view s(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 9) {
    case 0: {
      auto m = sluice::ParseTimeLimitMinutes(s);
      if (m.ok() && *m >= 0) (void)sluice::FormatLimitMinutes(*m);
      break;
    }
    case 1: {
      auto mb = sluice::ParseMemoryMb(s);
      if (mb.ok() && *mb >= 0) (void)sluice::FormatMemoryMb(*mb);
      break;
    }
    case 2:
      (void)sluice::ParseGres(s);
      break;
    case 3:
      (void)sluice::ParseGpuCount(s);
      break;
    case 4: {
      auto sig = sluice::ParseSignal(s);
      if (sig.ok()) (void)sluice::SignalName(*sig);
      break;
    }
    case 5:
      (void)sluice::ParseSignalSpec(s);
      break;
    case 6: {
      auto a = sluice::ParseArraySpec(s);
      if (a.ok()) (void)sluice::FormatTaskIds(a->task_ids);
      break;
    }
    case 7: {
      auto d = sluice::ParseDependency(s);
      if (d.ok()) {
        for (const auto& t : d->terms) (void)sluice::FormatDependencyTerm(t);
      }
      break;
    }
    case 8:
      (void)sluice::ParseTresBillingWeights(s);
      break;
  }
  return 0;
}
