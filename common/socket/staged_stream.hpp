#pragma once
// A byte-stream socket (TCP, or an rsocket) with the data in GPU memory, staged through host
// bounce buffers (--buffer cuda). The socket code can only copy from and to CPU-addressable pages,
// so every byte is copied between GPU memory and a bounce slot: the sender's GPU copy engine fills
// slot k+1 while send() drains slot k; the receiver's recv() fills slot k+1 while the copy engine
// drains slot k into GPU memory. With the copies overlapped, a stream runs at about min(network,
// PCIe copy) bandwidth; what staging cost (bytes, copies, the copies' GPU time, time the thread
// waited for them) is counted.
//
// Messages of a slot or more are staged in slot-sized pieces. Smaller messages are staged in
// batches, as an application producing messages in GPU memory would hand them over: the GPU buffer
// is a ring of `batch` messages and one copy moves a batch, while each message still has its own
// send() or recv() call, as on the host path. One copy per 8-byte message would measure the CUDA
// call's latency (about 4 us) rather than the transfer.
//
// A message never straddles two slots, so byte i of message j lands at offset (j % batch) * m + i of
// the receiver's GPU buffer (a test checks the pattern there).
//
// The loops are templates on the socket API's calls (socket_calls.hpp: KernelSockets, or Rsockets in
// rdma/rsocket_paths.hpp) and on the copy policy (memory/stage_ring.hpp: CUDA, or memcpy for the test memory kind
// sim-gpu), so one loop serves every staged stream and nothing is dispatched per message.
#include <sys/socket.h>

#include <cstddef>
#include <vector>

#include "cuda/stage_copy.hpp"
#include "socket/socket_calls.hpp"
#include "memory/stage_ring.hpp"
#include "core/stream_counters.hpp"

namespace zc {

// Bounce slots for a message size. Pieces of at most 1 MiB (small enough to stay in the CPU's
// caches next to the socket's own copy: 1 MiB beat 256K..4M on the H200 host), 4 slots (one being
// copied, one on the wire, two of slack). Messages under 256 KiB are batched up to 256 KiB per
// copy. ZCPERF_STAGE_CHUNK / ZCPERF_STAGE_SLOTS override the piece size and slot count (tuning).
struct StageShape {
    size_t slot_bytes;  // bytes one copy moves at most
    int slots;
    size_t batch;  // messages per slot (1 for messages of a piece or more)
    size_t gpu_bytes(size_t message_size) const { return message_size * batch; }
    uint64_t host_bytes() const { return static_cast<uint64_t>(slot_bytes) * static_cast<uint64_t>(slots); }
};
StageShape stage_shape(size_t message_size);

// What both ends of a staged stream hold: the socket, the GPU buffer (`batch` messages: the
// sender's holds the pattern, the receiver's is where the data lands) and the bounce ring.
template <class Copy>
class StagedStreamEnd {
public:
    StagedStreamEnd(int fd, size_t message_size, size_t alignment, int device)  // throws std::runtime_error
        : fd_(fd),
          message_size_(message_size),
          shape_(stage_shape(message_size)),
          gpu_(Copy::allocate(device, shape_.gpu_bytes(message_size))),
          ring_(device, shape_.slot_bytes, shape_.slots, alignment) {}
    const HostBuffer& buffer() const { return ring_.host(); }  // the bounce slots (host pages)
    const typename Copy::Memory& device_buffer() const { return gpu_; }

protected:
    int fd_;
    size_t message_size_;
    StageShape shape_;
    typename Copy::Memory gpu_;
    OwnedStageRing<Copy> ring_;
};

template <class Calls, class Copy>
class StagedStreamSender : public StagedStreamEnd<Copy> {
public:
    StagedStreamSender(int fd, size_t message_size, size_t alignment, int device);
    StreamCounters run(const StopRule& stop);

private:
    bool stage(int slot, const StopRule& stop);

    std::vector<size_t> staged_;        // bytes staged in each slot
    uint64_t committed_ = 0;            // bytes whose copy was queued (what a byte budget counts)
    size_t msg_len_ = 0, msg_off_ = 0;  // a large message being staged piece by piece
    bool ended_ = false;
};

template <class Calls, class Copy>
class StagedStreamReceiver : public StagedStreamEnd<Copy> {
public:
    StagedStreamReceiver(int fd, size_t message_size, size_t alignment, int device);  // the GPU buffer zeroed
    StreamCounters run(const StopRule& stop);
};

// A CUDA (or sim-gpu) call failed inside a loop: the stream ends with an error the side reports.
void stage_failed(StreamCounters& c, const std::exception& e);

}  // namespace zc
