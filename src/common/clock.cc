#include "common/clock.h"

namespace sluice {

int64_t RealClock::NowMs() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t RealClock::MonotonicMs() { return MonotonicUs() / 1000; }

int64_t RealClock::MonotonicUs() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace sluice
