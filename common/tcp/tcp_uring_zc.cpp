#include "tcp/tcp_uring_zc.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

// Debian 12's liburing 2.3 headers predate these (kernel 6.2 UAPI).
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

namespace zc {

namespace {
constexpr uint64_t kSlotBits = 0xffff;
}

TcpUringZcSender::TcpUringZcSender(int fd, size_t message_size, size_t alignment, bool fixed_buffers)
    : fd_(fd), ring_(message_size, alignment), fixed_(fixed_buffers) {
    int rc = io_uring_queue_init(static_cast<unsigned>(ring_.slots() * 2), &uring_, 0);
    if (rc < 0) {
        throw std::runtime_error(std::string("io_uring is not available (") + std::strerror(-rc) +
                                 "): the kernel lacks it or kernel.io_uring_disabled forbids it");
    }
    open_ = true;
    io_uring_probe* probe = io_uring_get_probe_ring(&uring_);
    bool has_zc = probe && io_uring_opcode_supported(probe, IORING_OP_SEND_ZC);
    if (probe) io_uring_free_probe(probe);
    if (!has_zc) throw std::runtime_error("this kernel's io_uring has no IORING_OP_SEND_ZC (needs Linux 6.0 or later)");
    if (fixed_) {
        std::vector<iovec> iov(ring_.slots());
        for (size_t i = 0; i < iov.size(); ++i) iov[i] = {ring_.data(i), ring_.message_size()};
        rc = io_uring_register_buffers(&uring_, iov.data(), static_cast<unsigned>(iov.size()));
        if (rc < 0) {
            throw std::runtime_error(std::string("io_uring_register_buffers: ") + std::strerror(-rc) +
                                     " (RLIMIT_MEMLOCK too low? try ulimit -l unlimited)");
        }
    }
}

TcpUringZcSender::~TcpUringZcSender() {
    if (open_) io_uring_queue_exit(&uring_);
}

void TcpUringZcSender::handle(const io_uring_cqe* cqe, StreamCounters& c) {
    size_t slot = cqe->user_data & kSlotBits;
    if (cqe->flags & IORING_CQE_F_NOTIF) {
        // The kernel is done with the slot's pages; res says whether it had copied them.
        ++c.zerocopy.completions;
        uint64_t b = ring_.release(slot);
        if (static_cast<uint32_t>(cqe->res) & IORING_NOTIF_USAGE_ZC_COPIED) c.zerocopy.copied_bytes += b;
        return;
    }
    --pending_sends_;
    if (cqe->res < 0) {
        if (!c.error) {
            c.error = -cqe->res;
            c.failed_call = "io_uring SEND_ZC";
        }
    } else {
        c.bytes += static_cast<uint64_t>(cqe->res);
        c.zerocopy.sent_bytes += static_cast<uint64_t>(cqe->res);
        ++c.ops;
    }
    // Without IORING_CQE_F_MORE no notification follows (nothing was sent): the slot is free now.
    if (!(cqe->flags & IORING_CQE_F_MORE)) ring_.release(slot);
}

StreamCounters TcpUringZcSender::run(const StopRule& stop) {
    StreamCounters c;
    size_t next = 0;
    uint64_t submitted_bytes = 0;
    bool stopping = false;
    while (true) {
        // Fill every free slot, then submit them in one system call.
        unsigned queued = 0;
        while (!stopping && !c.error && !ring_.busy(next % ring_.slots())) {
            size_t len = stop.next_length(submitted_bytes, ring_.message_size());
            if (len == 0) {
                stopping = true;
                break;
            }
            size_t slot = next % ring_.slots();
            io_uring_sqe* sqe = io_uring_get_sqe(&uring_);
            if (!sqe) break;
            if (fixed_) {
                io_uring_prep_send_zc_fixed(sqe, fd_, ring_.data(slot), len, MSG_WAITALL | MSG_NOSIGNAL,
                                            IORING_SEND_ZC_REPORT_USAGE, static_cast<unsigned>(slot));
            } else {
                io_uring_prep_send_zc(sqe, fd_, ring_.data(slot), len, MSG_WAITALL | MSG_NOSIGNAL,
                                      IORING_SEND_ZC_REPORT_USAGE);
            }
            sqe->user_data = slot;
            ring_.hand_over(slot, len);
            ++pending_sends_;
            submitted_bytes += len;
            ++next;
            ++queued;
        }
        if (ring_.in_flight() == 0 && (stopping || c.error)) break;
        io_uring_cqe* cqe = nullptr;
        int rc = queued ? io_uring_submit_and_wait(&uring_, 1) : io_uring_wait_cqe(&uring_, &cqe);
        if (rc < 0 && rc != -EINTR) {
            c.error = -rc;
            c.failed_call = "io_uring_enter";
            break;
        }
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&uring_, head, cqe) {
            handle(cqe, c);
            ++seen;
        }
        io_uring_cq_advance(&uring_, seen);
        stop.publish(c);
        if (c.error) stopping = true;
    }
    ::shutdown(fd_, SHUT_WR);
    return c;
}

}  // namespace zc
