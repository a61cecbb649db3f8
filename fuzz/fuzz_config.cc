// slurm.conf and gres.conf text. The first byte picks the parser. Config text that names a
// GresConf file is skipped: the parser would read that file, and a fuzzer must not read
// /dev/zero forever.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/config.h"
#include "common/text_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    std::string lower = sluice::ToLower(text);
    if (lower.find("gresconf") != std::string::npos) return 0;
    (void)sluice::ParseConfig(text, "/nonexistent/fuzz/slurm.conf");
  } else {
    auto config = sluice::ParseConfig("NodeName=n[1-4] CPUs=8 Gres=gpu:4\n", "fuzz.conf");
    if (config.ok()) (void)sluice::ApplyGresConf(text, "fuzz-gres.conf", &*config);
  }
  return 0;
}
