#pragma once
// A ring of equal send buffers for zero-copy senders: a slot may be written again only after the
// kernel said it is done with it, so the bytes on the wire are never changed under it.
#include <cstdint>
#include <vector>

#include "memory/host_buffer.hpp"

namespace zc {

class SendRing {
public:
    // Slots: enough to keep about 8 MiB in flight, between 2 and 64.
    SendRing(size_t message_size, size_t alignment);
    static size_t slots_for(size_t message_size);
    size_t slots() const { return bytes_.size(); }
    std::byte* data(size_t slot) const { return buffers_[slot].data(); }
    const HostBuffer& buffer(size_t slot) const { return buffers_[slot]; }
    size_t message_size() const { return buffers_.front().size(); }
    bool busy(size_t slot) const { return bytes_[slot] != 0; }
    size_t in_flight() const { return in_flight_; }
    void hand_over(size_t slot, uint64_t bytes) {
        bytes_[slot] = bytes;
        ++in_flight_;
    }
    uint64_t release(size_t slot) {  // returns the bytes the slot carried
        uint64_t b = bytes_[slot];
        bytes_[slot] = 0;
        --in_flight_;
        return b;
    }

private:
    std::vector<HostBuffer> buffers_;
    std::vector<uint64_t> bytes_;  // bytes in flight per slot; 0 = free
    size_t in_flight_ = 0;
};

}  // namespace zc
