#pragma once
// TCP with the data in GPU memory, staged through pinned host bounce buffers (--buffer cuda).
// The kernel's socket code can only copy from and to CPU-addressable pages, so each message is
// moved in chunks: the sender's GPU copy engine fills bounce slot k+1 while send() drains slot k;
// the receiver's recv() fills slot k+1 while the copy engine drains slot k into GPU memory. With
// the copies overlapped, a stream runs at about min(network, PCIe copy) bandwidth; what staging
// cost (bytes, copies, the copies' GPU time, time the thread waited for them) is counted.
//
// A message never shares a slot with the next one, so byte i of every message lands at offset i
// of the receiver's GPU buffer (a test checks the pattern there).
#include <cstddef>
#include <vector>

#include "cuda/bounce_ring.hpp"
#include "cuda/device_buffer.hpp"
#include "transport/stream_counters.hpp"

namespace zc {

// Bounce slots for a message size: chunks of at most 1 MiB (small enough to stay in the CPU's
// caches next to the socket's own copy), 4 slots (one being copied, one on the wire, two of slack
// for jitter). ZCPERF_STAGE_CHUNK / ZCPERF_STAGE_SLOTS override them, for tuning only.
struct StageShape {
    size_t slot_bytes;
    int slots;
};
StageShape stage_shape(size_t message_size);

class TcpStagedSender {
public:
    TcpStagedSender(int fd, size_t message_size, size_t alignment, int device);  // throws std::runtime_error
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return ring_.host(); }  // the bounce slots (host pages)
    const cuda::DeviceBuffer& device_buffer() const { return gpu_; }

private:
    int fd_;
    size_t message_size_;
    cuda::DeviceBuffer gpu_;  // the message, holding the data pattern
    cuda::BounceRing ring_;
    std::vector<size_t> staged_;  // bytes staged in each slot
};

class TcpStagedReceiver {
public:
    TcpStagedReceiver(int fd, size_t message_size, size_t alignment, int device);
    StreamCounters run();
    const HostBuffer& buffer() const { return ring_.host(); }
    const cuda::DeviceBuffer& device_buffer() const { return gpu_; }

private:
    int fd_;
    size_t message_size_;
    cuda::DeviceBuffer gpu_;  // where the data lands (zeroed at set-up)
    cuda::BounceRing ring_;
};

}  // namespace zc
