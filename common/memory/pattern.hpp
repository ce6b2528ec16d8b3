#pragma once
// The data pattern every buffer starts with, host or GPU: byte i of a message is 'a' + i % 26.
// Non-zero (every page is touched) and recognisable, so a test can check where data landed.
#include <cstddef>
#include <cstdint>

namespace zc {

inline std::byte pattern_byte(uint64_t offset) { return static_cast<std::byte>('a' + offset % 26); }

// Writes the pattern for message offsets [offset, offset + n) into p.
inline void fill_pattern(std::byte* p, size_t n, uint64_t offset) {
    for (size_t i = 0; i < n; ++i) p[i] = pattern_byte(offset + i);
}

}  // namespace zc
