#include "transport/tcp_gpu_staged.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "cuda/copy.hpp"
#include "cuda/device.hpp"
#include "units.hpp"

namespace zc {

namespace {
constexpr size_t kSlotBytes = 1u << 20;
constexpr int kSlots = 4;

size_t env_size(const char* name, size_t fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    try {
            return static_cast<size_t>(parse_size(v));
    } catch (...) {
        return fallback;
    }
}
// A CUDA call failed inside a loop (the GPU fell off the bus, a driver error): the stream ends with
// an error the side reports, as a failed send() would, instead of an exception on a data thread.
void stage_failed(StreamCounters& c, const std::exception& e) {
    std::fprintf(stderr, "zcperf: GPU staging failed: %s\n", e.what());
    c.error = EIO;
    c.failed_call = "the GPU staging copy (cudaMemcpyAsync/cudaEventSynchronize; the CUDA error is on stderr)";
}

}  // namespace

StageShape stage_shape(size_t message_size) {
    size_t slot = std::clamp<size_t>(env_size("ZCPERF_STAGE_CHUNK", kSlotBytes), 4096, 1u << 30);
    int slots = static_cast<int>(std::clamp<size_t>(env_size("ZCPERF_STAGE_SLOTS", kSlots), 2, 64));
    return {std::min(slot, message_size), slots};
}

TcpStagedSender::TcpStagedSender(int fd, size_t message_size, size_t alignment, int device)
    : fd_(fd),
      message_size_(message_size),
      gpu_(device, message_size),
      ring_(device, stage_shape(message_size).slot_bytes, stage_shape(message_size).slots, alignment),
      staged_(static_cast<size_t>(ring_.slots()), 0) {
    cuda::upload_pattern(ring_, gpu_.data(), message_size);
    ring_.reset_counts();
}

StreamCounters TcpStagedSender::run(const StopRule& stop) {
    cuda::use_device(gpu_.device());
    StreamCounters c;
    const int slots = ring_.slots();
    uint64_t committed = 0;  // bytes whose copy was queued: what the stop rule's budget counts
    size_t msg_len = 0, msg_off = 0;
    bool ended = false;
    // Queues the next chunk of the current message (or of a new one) into slot i. The stop rule is
    // asked when a message starts, a few chunks before it goes on the wire.
    auto stage = [&](int i) -> bool {
        if (ended) return false;
        if (msg_off == msg_len) {
            size_t next = stop.next_length(committed, message_size_);
            if (next == 0) {
                ended = true;
                return false;
            }
            msg_len = next;
            msg_off = 0;
        }
        size_t n = std::min(ring_.slot_bytes(), msg_len - msg_off);
        ring_.fill_from_device(i, gpu_.data() + msg_off, n);
        staged_[i] = n;
        msg_off += n;
        committed += n;
        return true;
    };
    int filled = 0;
    try {
        while (filled < slots && stage(filled)) ++filled;
        // Slots head, head+1, ... (mod slots) hold staged chunks in wire order.
        for (int head = 0; filled > 0; head = (head + 1) % slots) {
            ring_.wait(head);
            const std::byte* p = ring_.slot(head);
            for (size_t left = staged_[head]; left > 0;) {
                ssize_t n = ::send(fd_, p, left, MSG_NOSIGNAL);
                if (n < 0) {
                    if (errno == EINTR) continue;
                    c.error = errno;
                    c.failed_call = "send";
                    break;
                }
                c.bytes += static_cast<uint64_t>(n);
                ++c.ops;
                p += n;
                left -= static_cast<size_t>(n);
            }
            if (c.error) break;
            --filled;
            if (stage(head)) ++filled;
        }
        ring_.wait_all();  // no copy may still write a slot when the ring goes
    } catch (const std::exception& e) {
        stage_failed(c, e);
    }
    ::shutdown(fd_, SHUT_WR);
    c.staging = ring_.counts();
    return c;
}

TcpStagedReceiver::TcpStagedReceiver(int fd, size_t message_size, size_t alignment, int device)
    : fd_(fd),
      message_size_(message_size),
      gpu_(device, message_size),
      ring_(device, stage_shape(message_size).slot_bytes, stage_shape(message_size).slots, alignment) {
    cuda::zero(gpu_.data(), gpu_.allocated());
}

StreamCounters TcpStagedReceiver::run() {
    cuda::use_device(gpu_.device());
    StreamCounters c;
    const int slots = ring_.slots();
    int slot = 0;
    size_t fill = 0;        // bytes received into the current slot
    size_t msg_off = 0;     // where the current slot's bytes go in the message
    size_t limit = std::min(ring_.slot_bytes(), message_size_);
    try {
        while (true) {
            ssize_t n = ::recv(fd_, ring_.slot(slot) + fill, limit - fill, 0);
            if (n > 0) {
                c.bytes += static_cast<uint64_t>(n);
                ++c.ops;
                fill += static_cast<size_t>(n);
                if (fill < limit) continue;
                ring_.drain_to_device(slot, gpu_.data() + msg_off, fill);
                msg_off = (msg_off + fill) % message_size_;
                fill = 0;
                slot = (slot + 1) % slots;
                ring_.wait(slot);  // its previous copy must be done before recv writes it again
                limit = std::min(ring_.slot_bytes(), message_size_ - msg_off);
            } else if (n == 0) {
                break;
            } else if (errno != EINTR) {
                c.error = errno;
                c.failed_call = "recv";
                break;
            }
        }
        if (fill > 0) ring_.drain_to_device(slot, gpu_.data() + msg_off, fill);
        ring_.wait_all();  // the data is in GPU memory when the stream's result is reported
    } catch (const std::exception& e) {
        stage_failed(c, e);
        ::shutdown(fd_, SHUT_RDWR);  // the sender sees the end instead of a stall
    }
    c.staging = ring_.counts();
    return c;
}

}  // namespace zc
