#pragma once
// TCP with the data in GPU memory, staged through pinned host bounce buffers (--buffer cuda).
// The kernel's socket code can only copy from and to CPU-addressable pages, so every byte is
// copied between GPU memory and a bounce slot: the sender's GPU copy engine fills slot k+1 while
// send() drains slot k; the receiver's recv() fills slot k+1 while the copy engine drains slot k
// into GPU memory. With the copies overlapped, a stream runs at about min(network, PCIe copy)
// bandwidth; what staging cost (bytes, copies, the copies' GPU time, time the thread waited for
// them) is counted.
//
// Messages of a slot or more are staged in slot-sized pieces. Smaller messages are staged in
// batches, as an application producing messages in GPU memory would hand them over: the GPU buffer
// is a ring of `batch` messages and one copy moves a batch, while each message still has its own
// send() or recv() call, as on the host path. One copy per 8-byte message would measure the CUDA
// call's latency (about 4 us) rather than the transfer.
//
// A message never straddles two slots, so byte i of message j lands at offset (j % batch) * m + i of
// the receiver's GPU buffer (a test checks the pattern there).
#include <cstddef>
#include <vector>

#include "cuda/bounce_ring.hpp"
#include "cuda/device_buffer.hpp"
#include "transport/stream_counters.hpp"

namespace zc {

// Bounce slots for a message size. Pieces of at most 1 MiB (small enough to stay in the CPU's
// caches next to the socket's own copy: 1 MiB beat 256K..4M on the H200 host), 4 slots (one being
// copied, one on the wire, two of slack). Messages under 256 KiB are batched up to 256 KiB per
// copy. ZCPERF_STAGE_CHUNK / ZCPERF_STAGE_SLOTS override the piece size and slot count (tuning).
struct StageShape {
    size_t slot_bytes;  // bytes one copy moves at most
    int slots;
    size_t batch;       // messages per slot (1 for messages of a piece or more)
    size_t gpu_bytes(size_t message_size) const { return message_size * batch; }
};
StageShape stage_shape(size_t message_size);

class TcpStagedSender {
public:
    TcpStagedSender(int fd, size_t message_size, size_t alignment, int device);  // throws std::runtime_error
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return ring_.host(); }  // the bounce slots (host pages)
    const cuda::DeviceBuffer& device_buffer() const { return gpu_; }

private:
    bool stage(int slot, const StopRule& stop);

    int fd_;
    size_t message_size_;
    StageShape shape_;
    cuda::DeviceBuffer gpu_;  // `batch` messages, each holding the data pattern
    cuda::BounceRing ring_;
    std::vector<size_t> staged_;  // bytes staged in each slot
    uint64_t committed_ = 0;      // bytes whose copy was queued (what a byte budget counts)
    size_t msg_len_ = 0, msg_off_ = 0;  // a large message being staged piece by piece
    bool ended_ = false;
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
    StageShape shape_;
    cuda::DeviceBuffer gpu_;  // where the data lands (zeroed at set-up): `batch` messages
    cuda::BounceRing ring_;
};

}  // namespace zc
