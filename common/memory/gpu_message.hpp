#pragma once
// One message in GPU memory for request/response paths (-t rr): staged out to a pinned slot before
// it is sent, and landed into GPU memory after it is received, each copy waited for at once (a
// transaction cannot complete before its bytes are where they belong, so there is nothing to overlap).
// The staging's cost is counted as for streams. Allocates only at construction.
#include <cstddef>

#include "memory/bounce_ring.hpp"
#include "cuda/device_buffer.hpp"

namespace zc::cuda {

class GpuMessage {
public:
    // What the GPU copy holds at first: the data pattern (a side that sends first) or zeros (a side
    // that receives first, so a test can tell the received data from what was there).
    enum class Start { pattern, zeroed };
    GpuMessage(int device, size_t size, size_t alignment, Start start = Start::pattern);
    std::byte* slot() const { return ring_.slot(0); }  // send from / recv into this (pinned host)
    size_t size() const { return gpu_.size(); }
    // GPU -> slot, the first n bytes; returns the slot once the copy is done.
    const std::byte* stage_out(size_t n);
    // slot -> GPU, the first n bytes; returns once they are in GPU memory.
    void land(size_t n);
    const DeviceBuffer& device_buffer() const { return gpu_; }
    const HostBuffer& host() const { return ring_.host(); }
    const StagingCounts& counts() const { return ring_.counts(); }

private:
    DeviceBuffer gpu_;
    BounceRing ring_;
};

}  // namespace zc::cuda
