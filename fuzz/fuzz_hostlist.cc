// Hostlist expressions ("node[01-10,12]"): expand must not crash, and a successful
// expansion compresses back to a list that expands to the same hosts.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view expr(reinterpret_cast<const char*>(data), size);
  auto hosts = sluice::ExpandHostlist(expr);
  if (!hosts.ok()) return 0;
  auto again = sluice::ExpandHostlist(sluice::CompressHostlist(*hosts));
  if (!again.ok() || *again != *hosts) std::abort();
  return 0;
}
