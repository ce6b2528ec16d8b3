#pragma once
// Human sizes ("64K", "1M", "64K..4M") and durations, as the CLI accepts them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zc {

// "4096", "64K", "1M", "2G" (binary multiples, as netperf and iperf3 use). Throws std::invalid_argument.
uint64_t parse_size(std::string_view text);

// "64K" -> {65536}; "64K,1M" -> list; "64K..4M" -> doubling range, both ends included
// (an end that is not on the doubling ladder is added last).
std::vector<uint64_t> parse_size_list(std::string_view text);

// 65536 -> "64K"; 1048576 -> "1M"; 1000 -> "1000".
std::string format_size(uint64_t bytes);

}  // namespace zc
