// Small string helpers shared by the parsers in common/ (ASCII only).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sluice {

std::string_view Trim(std::string_view s);
bool IsAllDigits(std::string_view s);  // false for ""
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);
// Splits at every `sep`; keeps empty parts ("a,,b" -> a,"",b; "" -> {""}).
std::vector<std::string_view> Split(std::string_view s, char sep);
// Parses a non-negative decimal integer (no sign, no spaces) that fits in int64_t.
bool ParseNonNegative(std::string_view s, int64_t* out);
// Ids as ranges, sorted: {3, 0, 1, 2, 8} -> "0-3,8" ("" for none).
std::string FormatIdRanges(std::vector<int> ids);
// The ids of "0-3,8" (ranges and single ids; malformed items are skipped).
std::vector<int> ExpandIdRanges(std::string_view s);

}  // namespace sluice
