#pragma once
// Takes completions off a stream's CQ, by busy-polling (--cq-mode poll: the thread never sleeps,
// its CPU shows as user time) or by sleeping on the completion channel (--cq-mode event). While
// nothing completes it watches, every few milliseconds, the abort flag, the peer's rdma_cm
// disconnect and a stall timeout, so a dead peer or Ctrl-C ends the loop. Inline: it is the hot path.
#include <poll.h>
#include <sched.h>

#include <atomic>
#include <cerrno>

#include "rdma/rdma_connection.hpp"
#include "core/stream_counters.hpp"

namespace zc {

class CqWaiter {
public:
    static constexpr int kBatch = 32;
    static constexpr int64_t kStallNs = 10'000'000'000;  // as TCP's receive timeout

    // stall_ns: how long nothing may complete before the peer counts as stalled (0 = never: a
    // passive side that only waits for the peer's end message).
    CqWaiter(const RdmaConnection& c, const std::atomic<bool>* abort, int64_t stall_ns = kStallNs)
        : c_(c), cq_(c.cq()), abort_(abort), stall_ns_(stall_ns) {
        if (c.options().cq_mode == CqMode::event) {
            channel_ = c.comp_channel();
            ibv_req_notify_cq(cq_, 0);
        }
    }
    CqWaiter(const CqWaiter&) = delete;
    CqWaiter& operator=(const CqWaiter&) = delete;
    ~CqWaiter() {
        if (unacked_) ibv_ack_cq_events(cq_, unacked_);  // the CQ cannot be destroyed with events unacked
    }

    // Completions now, without waiting (0 if none; <0 on a poll error).
    int poll(ibv_wc* wc) { return ibv_poll_cq(cq_, kBatch, wc); }

    // Waits for at least one completion. Returns how many, or 0 when the loop must end: aborted
    // (c.error stays 0), peer gone, stalled (c.error set).
    int wait(ibv_wc* wc, StreamCounters& c) {
        int64_t since = 0;
        for (unsigned spins = 0;; ++spins) {
            int n = ibv_poll_cq(cq_, kBatch, wc);
            if (n != 0) {
                if (n < 0) fail(c, EIO, "ibv_poll_cq");
                return n < 0 ? 0 : n;
            }
            if (channel_) {
                if (!sleep_on_channel()) return fail(c, errno, "ibv_get_cq_event");
            } else {
                // Busy-poll, but let another runnable thread on this CPU have it now and then: with a
                // software device (Soft-RoCE, siw) the transfer itself runs in kernel threads
                // (ksoftirqd, workqueues) that a spinning thread would otherwise halve. When nothing
                // else is runnable sched_yield returns at once; on a hardware NIC it costs ~1 us per 64 polls.
                if ((spins & 63) == 63) sched_yield();
                if ((spins & 1023) != 1023) continue;  // look around only every 1024 empty polls
            }
            if (abort_->load(std::memory_order_relaxed)) return 0;
            int64_t now = monotonic_ns();
            if (since == 0) since = now;
            if (now - since > 2'000'000 && peer_checked(now)) {
                if (c_.peer_gone()) return fail(c, ECONNRESET, "RDMA connection (the peer disconnected)");
            }
            if (stall_ns_ && now - since > stall_ns_) return fail(c, EAGAIN, "ibv_poll_cq");
        }
    }

    static int fail(StreamCounters& c, int error, const char* call) {
        c.error = error;
        c.failed_call = call;
        return 0;
    }

private:
    // Arms the CQ, re-polls (a completion may have slipped in), sleeps up to 50 ms on the channel.
    bool sleep_on_channel() {
        pollfd p{channel_->fd, POLLIN, 0};
        int rc = ::poll(&p, 1, 50);
        if (rc < 0) return errno == EINTR;
        if (rc == 0) return true;
        ibv_cq* ev_cq = nullptr;
        void* ctx = nullptr;
        if (ibv_get_cq_event(channel_, &ev_cq, &ctx) != 0) return errno == EAGAIN;
        if (++unacked_ >= 64) {
            ibv_ack_cq_events(cq_, unacked_);
            unacked_ = 0;
        }
        ibv_req_notify_cq(cq_, 0);
        return true;
    }
    bool peer_checked(int64_t now) {
        if (now - last_peer_check_ < 5'000'000) return false;
        last_peer_check_ = now;
        return true;
    }

    const RdmaConnection& c_;
    ibv_cq* cq_;
    ibv_comp_channel* channel_ = nullptr;
    const std::atomic<bool>* abort_;
    int64_t stall_ns_;
    unsigned unacked_ = 0;
    int64_t last_peer_check_ = 0;
};

}  // namespace zc
