#pragma once
// Pinned host bounce buffers between the network and GPU memory. TCP cannot read or write GPU
// memory, so every byte is staged: the GPU's copy engine fills (or drains) one slot while the data
// thread sends (or receives) another, on the ring's own stream. An event recorded after each copy
// says when that slot is free again, so the thread waits for one copy, never for the whole stream.
//
// Usable by any data path: a stream sender keeps every slot busy (copy k+1 overlaps send k); a
// request/response path can use one slot synchronously (fill, wait, send; recv, drain, wait).
// Slots are fixed at construction; nothing here allocates after that.
#include <cstddef>
#include <vector>

#include "cuda/event.hpp"
#include "cuda/stream.hpp"
#include "memory/host_buffer.hpp"
#include "transport/staging_counts.hpp"

namespace zc::cuda {

class BounceRing {
public:
    // `slots` slots of `slot_bytes` pinned bytes each, one allocation; copies run on `device`.
    BounceRing(int device, size_t slot_bytes, int slots, size_t alignment);
    BounceRing(const BounceRing&) = delete;
    BounceRing& operator=(const BounceRing&) = delete;
    ~BounceRing();  // waits for copies in flight: their memory is about to go

    int slots() const { return static_cast<int>(pending_.size()); }
    size_t slot_bytes() const { return slot_bytes_; }
    std::byte* slot(int i) const { return host_.data() + static_cast<size_t>(i) * slot_bytes_; }
    const HostBuffer& host() const { return host_; }  // all slots, for reading back where the pages are

    // Queue device -> slot i, or slot i -> device; return at once. The slot must be free (waited).
    void fill_from_device(int i, const std::byte* device_src, size_t bytes) { queue(i, slot(i), device_src, bytes); }
    void drain_to_device(int i, std::byte* device_dst, size_t bytes) { queue(i, device_dst, slot(i), bytes); }
    // Until slot i's copy (if any) is done; its GPU time and our wait are added to the counts.
    void wait(int i);
    void wait_all();
    const StagingCounts& counts() const { return counts_; }
    void reset_counts() { counts_ = {}; }  // after set-up copies, before the measured interval

private:
    void queue(int i, void* dst, const void* src, size_t bytes);

    int device_;  // first: made current before the stream and events are created on it
    size_t slot_bytes_;
    HostBuffer host_;
    Stream stream_;
    std::vector<Event> start_, done_;
    std::vector<char> pending_;
    StagingCounts counts_;
};

// Fills a GPU buffer with the data pattern (memory/pattern.hpp) repeated every `period` bytes (one
// message), chunk by chunk through the ring.
void upload_pattern(BounceRing& ring, std::byte* device_dst, size_t bytes, size_t period);

}  // namespace zc::cuda
