// A batch script as sbatch reads it: the sanity checks, the #SBATCH directives, and the
// directive tokens parsed as sbatch options and applied to a job spec.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/batch_script.h"
#include "cli/opt_parser.h"
#include "cli/sbatch_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view script(reinterpret_cast<const char*>(data), size);
  (void)sluice::CheckBatchScript(script);
  auto directives = sluice::ExtractDirectives(script);
  if (!directives.ok()) return 0;
  std::vector<std::string> args;
  for (const auto& d : *directives) args.insert(args.end(), d.tokens.begin(), d.tokens.end());
  auto parsed = sluice::ParseCommandLine("sbatch", args, sluice::SbatchOptionDefs());
  if (!parsed.ok()) return 0;
  sluice::SbatchOptions options;
  (void)sluice::ApplySbatchOptions(parsed->options, &options);
  return 0;
}
