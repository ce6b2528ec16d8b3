#pragma once
// Where an rr side keeps its one message (--buffer), as a small policy the rr loops (socket_rr.hpp)
// are templated on, so host, pinned and GPU memory share one loop and the choice costs nothing per
// transaction (no virtual call; the host policy's hooks compile away).
//
// Each transaction a side sends from outgoing(n), receives into incoming(), then calls arrived(n):
//  - host and pinned memory: one buffer, used in place (pinned = HostBuffer's pinned mode);
//  - GPU memory: the socket can only copy from and to CPU-addressable pages, so the message is
//    staged through a pinned slot: outgoing() copies GPU -> slot, arrived() copies slot -> GPU, each
//    waited for at once (memory/gpu_message.hpp) because the transaction cannot go on before its bytes
//    are where they belong. That cost is in the measured round trip, as it would be for an
//    application, and is also counted (staging(): bytes, copies, GPU time, waits).
#include <cstddef>

#include "memory/gpu_message.hpp"
#include "core/buffer_spec.hpp"
#include "memory/host_buffer.hpp"
#include "core/staging_counts.hpp"

namespace zc {

class HostRrMessage {
public:
    // `sends_first` is for the GPU policy; host buffers always start with the pattern.
    HostRrMessage(size_t size, size_t alignment, const BufferSpec& where, bool /*sends_first*/)
        : buf_(size, alignment, where.kind == MemoryKind::pinned ? HostMemory::pinned : HostMemory::pageable) {}
    const std::byte* outgoing(size_t) { return buf_.data(); }
    std::byte* incoming() { return buf_.data(); }
    void arrived(size_t) {}
    StagingCounts staging() const { return {}; }
    size_t size() const { return buf_.size(); }
    const HostBuffer& buffer() const { return buf_; }

private:
    HostBuffer buf_;
};

class GpuRrMessage {
public:
    // The side that sends first (the initiator) starts with the data pattern in GPU memory; the
    // responder starts zeroed, so the request it received can be told from what it began with.
    GpuRrMessage(size_t size, size_t alignment, const BufferSpec& where, bool sends_first)
        : msg_(where.device, size, alignment,
               sends_first ? cuda::GpuMessage::Start::pattern : cuda::GpuMessage::Start::zeroed) {}
    const std::byte* outgoing(size_t n) { return msg_.stage_out(n); }
    std::byte* incoming() { return msg_.slot(); }
    void arrived(size_t n) { msg_.land(n); }
    StagingCounts staging() const { return msg_.counts(); }
    size_t size() const { return msg_.size(); }
    const HostBuffer& buffer() const { return msg_.host(); }  // the pinned slot (host pages)
    const cuda::DeviceBuffer& device_buffer() const { return msg_.device_buffer(); }

private:
    cuda::GpuMessage msg_;
};

}  // namespace zc
