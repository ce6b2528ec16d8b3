#include "tcp/send_ring.hpp"

#include <algorithm>

namespace zc {

size_t SendRing::slots_for(size_t message_size) {
    return std::clamp<size_t>((8u << 20) / std::max<size_t>(message_size, 1), 2, 64);
}

SendRing::SendRing(size_t message_size, size_t alignment) {
    size_t n = slots_for(message_size);
    buffers_.reserve(n);
    for (size_t i = 0; i < n; ++i) buffers_.emplace_back(message_size, alignment);
    bytes_.assign(n, 0);
}

}  // namespace zc
