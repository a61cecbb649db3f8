// The input framing of the sequence targets (controller_requests, agent_requests):
// records of [kind][flags][len lo][len hi][len bytes], at most `max` of them; a truncated
// last record is dropped.
#pragma once

#include <cstddef>
#include <cstdint>

template <typename Fn>  // fn(uint8_t kind, uint8_t flags, const uint8_t* data, size_t size)
void ForEachRecord(const uint8_t* data, size_t size, int max, Fn fn) {
  size_t pos = 0;
  for (int n = 0; pos + 4 <= size && n < max; ++n) {
    size_t len = data[pos + 2] | static_cast<size_t>(data[pos + 3]) << 8;
    if (pos + 4 + len > size) return;
    fn(data[pos], data[pos + 1], data + pos + 4, len);
    pos += 4 + len;
  }
}
