// rr over rdma-send and rdma-write (see verbs_paths.hpp for the protocol). Everything a
// transaction needs is built in the constructor; a transaction is one or two post calls, the wait
// for the answer and two clock reads: no allocation, no virtual call.
#include <arpa/inet.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include "rdma/cq_waiter.hpp"
#include "rdma/verbs_paths.hpp"

namespace zc {

namespace {

constexpr uint32_t kEndImm = 0x454e4421;  // the initiator's last word: "END!"

inline int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A message's last byte: bit 0 the direction (0 request, 1 answer), bits 1-7 the transaction
// number modulo 128. What lands must carry the tag expected now, never the one already there.
inline uint8_t tag(uint64_t t, bool answer) { return static_cast<uint8_t>(((t & 0x7f) << 1) | (answer ? 1 : 0)); }

const char* arrival_name(RdmaRr::Arrival a) {
    switch (a) {
        case RdmaRr::Arrival::receive:
            return "receive completion (SEND into a posted receive)";
        case RdmaRr::Arrival::write_imm:
            return "receive completion (RDMA WRITE WITH IMM)";
        case RdmaRr::Arrival::last_byte:
            return "polling the landing buffer's last byte (RDMA WRITE, ib_write_lat style)";
    }
    return "";
}

}  // namespace

RdmaRr::RdmaRr(RdmaConnection& c, bool initiator, LatencyHistogram* rtt) : c_(c), initiator_(initiator), rtt_(rtt) {
    const bool write = c.op() == RdmaOp::write;
    arrival_ = !write                                ? Arrival::receive
               : c.options().cq_mode == CqMode::poll ? Arrival::last_byte
                                                     : Arrival::write_imm;
    const uint64_t n = c.message_size(), piece = c.piece_size();
    const uint32_t pieces = c.pieces();
    std::byte* buf = c.data();
    const PeerBuffer& peer = c.peer(0);
    if (write && peer.length < n) throw std::runtime_error("the peer's rr buffer is smaller than the message");
    send_sges_.resize(pieces);
    send_wrs_.resize(pieces);
    for (uint32_t i = 0; i < pieces; ++i) {
        uint64_t off = uint64_t(i) * piece;
        send_sges_[i] = ibv_sge{reinterpret_cast<uint64_t>(buf + off), static_cast<uint32_t>(std::min(piece, n - off)),
                                c.data_lkey()};
        ibv_send_wr& w = send_wrs_[i];
        w = ibv_send_wr{};
        w.sg_list = &send_sges_[i];
        w.num_sge = 1;
        w.next = i + 1 < pieces ? &send_wrs_[i + 1] : nullptr;
        if (write) {
            w.opcode = IBV_WR_RDMA_WRITE;
            w.wr.rdma.remote_addr = peer.addr + off;
            w.wr.rdma.rkey = peer.rkey;
        } else {
            w.opcode = IBV_WR_SEND;
        }
    }
    if (arrival_ == Arrival::write_imm) {
        send_wrs_.back().opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
        send_wrs_.back().imm_data = htonl(1);
    }
    // --inline: a one-piece message the QP can carry inline goes with the post (no DMA read).
    if (pieces == 1 && c.options().inline_size > 0 && n <= c.max_inline()) send_wrs_[0].send_flags = IBV_SEND_INLINE;

    // Receives: rdma-send one per piece (into the buffer); otherwise one without a buffer, which a
    // write with immediate (or the initiator's end message) consumes.
    const uint32_t nrecv = arrival_ == Arrival::receive ? pieces : 1;
    recv_sges_.resize(nrecv);
    recv_wrs_.resize(nrecv);
    for (uint32_t i = 0; i < nrecv; ++i) {
        ibv_recv_wr& w = recv_wrs_[i];
        w = ibv_recv_wr{};
        w.wr_id = i;
        if (arrival_ == Arrival::receive) {
            recv_sges_[i] = send_sges_[i];
            w.sg_list = &recv_sges_[i];
            w.num_sge = 1;
        }
        w.next = i + 1 < nrecv ? &recv_wrs_[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (ibv_post_recv(c.qp(0), recv_wrs_.data(), &bad) != 0)
        throw std::runtime_error("ibv_post_recv failed while posting rr receives");
    // The responder's last byte starts as an answer tag, so no request can be mistaken for one there.
    if (!initiator_) buf[n - 1] = static_cast<std::byte>(tag(127, true));
    if (rtt_) rtt_->prepare();
    c.info().rr_wait = arrival_name(arrival_);
}

struct RdmaRr::Loop {
    RdmaRr& p;
    StreamCounters sc;
    CqWaiter waiter;
    ibv_qp* qp;
    const uint64_t n;
    const uint32_t pieces;
    const uint32_t send_depth;
    const uint32_t signal_every;
    volatile uint8_t* last;  // the message's last byte, where its tag lands
    const std::atomic<bool>* abort_flag;
    uint32_t outstanding = 0, unsignaled = 0;
    uint32_t arrived = 0;  // pieces of the current message seen
    uint64_t got = 0;      // rdma-send: bytes of the current message received
    bool ended = false;
    uint64_t inline_sends = 0, data_sends = 0, post_calls = 0;
    ibv_wc wc[CqWaiter::kBatch];

    Loop(RdmaRr& rr, const StopRule& stop)
        : p(rr),
          waiter(rr.c_, stop.abort),
          qp(rr.c_.qp(0)),
          n(rr.c_.message_size()),
          pieces(rr.c_.pieces()),
          send_depth(rr.c_.send_depth()),
          signal_every(std::max(1u, (rr.c_.send_depth() - 1) / 2)),
          last(reinterpret_cast<volatile uint8_t*>(rr.c_.data() + n - 1)),
          abort_flag(stop.abort) {}

    bool fail(int error, const char* call) { return CqWaiter::fail(sc, error, call) != 0; }

    // One completion: a send finished (frees its count of send-queue entries), a piece or a whole
    // written message arrived, or the end. False on a failed completion.
    bool take(const ibv_wc& w) {
        if (w.status != IBV_WC_SUCCESS) return fail_completion(sc, w) != 0;
        if (!(w.opcode & IBV_WC_RECV)) {
            outstanding -= static_cast<uint32_t>(w.wr_id);
            return true;
        }
        if (w.opcode == IBV_WC_RECV && (w.wc_flags & IBV_WC_WITH_IMM)) {
            if (ntohl(w.imm_data) != kEndImm) return fail(EBADMSG, "rr end message (unexpected immediate data)");
            ended = true;
        } else if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
            arrived = pieces;
        } else {
            ++arrived;
            got += w.byte_len;
        }
        return true;
    }

    bool take_all(int k) {
        for (int i = 0; i < k; ++i)
            if (!take(wc[i])) return false;
        return true;
    }

    // Reaps send completions until `room` more entries fit in the send queue.
    bool make_room(uint32_t room) {
        while (outstanding + room > send_depth) {
            int k = waiter.wait(wc, sc);
            if (k == 0 || !take_all(k)) return false;
        }
        return true;
    }

    // Posts this side's message (its tag already in the last byte); signalled every half queue.
    bool send() {
        if (!make_room(pieces + 1)) return false;  // + 1: the end message always fits
        ibv_send_wr& lastwr = p.send_wrs_.back();
        lastwr.send_flags &= ~IBV_SEND_SIGNALED;
        lastwr.wr_id = 0;
        unsignaled += pieces;
        if (unsignaled >= signal_every) {
            lastwr.send_flags |= IBV_SEND_SIGNALED;
            lastwr.wr_id = unsignaled;  // its completion frees this many entries
            unsignaled = 0;
        }
        outstanding += pieces;
        inline_sends += (p.send_wrs_[0].send_flags & IBV_SEND_INLINE) != 0;
        data_sends += pieces;
        ++post_calls;
        ++sc.ops;
        ibv_send_wr* bad = nullptr;
        if (ibv_post_send(qp, p.send_wrs_.data(), &bad) != 0) return fail(errno ? errno : EIO, "ibv_post_send");
        return true;
    }

    // The receives for the next message, posted before anything can send it.
    bool repost() {
        if (p.arrival_ == Arrival::last_byte) return true;
        ++sc.ops;
        ibv_recv_wr* bad = nullptr;
        if (ibv_post_recv(qp, p.recv_wrs_.data(), &bad) != 0) return fail(errno ? errno : EIO, "ibv_post_recv");
        return true;
    }

    // Waits until the message tagged `want` has landed (or, for the responder, the end came).
    bool arrive(uint8_t want) {
        if (p.arrival_ == Arrival::last_byte) {
            int64_t since = 0, checked = 0;
            for (unsigned spins = 1; *last != want; ++spins) {
                if ((spins & 15) == 0) {  // sends to reap; the responder's end message
                    int k = waiter.poll(wc);
                    if (k < 0) return fail(EIO, "ibv_poll_cq");
                    if (k > 0 && !take_all(k)) return false;
                    if (ended) return true;
                }
                // As CqWaiter: on a software device the transfer runs in kernel threads this
                // spinning thread would starve; sched_yield returns at once when none waits.
                if ((spins & 63) == 0) sched_yield();
                if ((spins & 4095) != 0) continue;
                if (waiter_aborted()) return false;
                int64_t now = now_ns();
                if (!since) since = now;
                if (now - checked > 5'000'000) {
                    checked = now;
                    if (p.c_.peer_gone()) return fail(ECONNRESET, "RDMA connection (the peer disconnected)");
                }
                if (now - since > CqWaiter::kStallNs) return fail(EAGAIN, "rr answer (polling the last byte)");
            }
        } else {
            while (arrived < pieces && !ended) {
                int k = waiter.wait(wc, sc);
                if (k == 0 || !take_all(k)) return false;
            }
            if (ended) return true;
            if (p.arrival_ == Arrival::receive && got != n) return fail(EBADMSG, "rr message (a piece arrived short)");
            arrived = 0;
            got = 0;
            if (*last != want)
                return fail(EBADMSG, "rr message tag (the message that arrived is not the one expected)");
        }
        sc.bytes += n;
        return true;
    }
    bool waiter_aborted() { return abort_flag->load(std::memory_order_relaxed); }

    // The initiator's end: a zero-length SEND with immediate data; then every signalled send completed.
    bool finish(bool send_end) {
        if (send_end) {
            if (!make_room(1)) return false;
            ibv_send_wr wr{};
            wr.opcode = IBV_WR_SEND_WITH_IMM;
            wr.imm_data = htonl(kEndImm);
            wr.send_flags = IBV_SEND_SIGNALED;
            wr.wr_id = unsignaled + 1;
            unsignaled = 0;
            ++outstanding;
            ibv_send_wr* bad = nullptr;
            if (ibv_post_send(qp, &wr, &bad) != 0) return fail(errno ? errno : EIO, "ibv_post_send (rr end)");
        }
        // Every signalled send completed (an unsignalled tail needs nothing: the peer has it).
        while (outstanding > unsignaled) {
            int k = waiter.wait(wc, sc);
            if (k == 0 || !take_all(k)) return false;
        }
        return true;
    }

    void report() {
        RdmaInfo& info = p.c_.info();
        info.inline_sends += inline_sends;
        info.data_sends += data_sends;
        info.post_calls += post_calls;
    }
};

StreamCounters RdmaRr::run(const StopRule& stop) {
    Loop l(*this, stop);
    std::byte* const tagp = c_.data() + c_.message_size() - 1;
    bool ok = true;
    if (initiator_) {
        for (uint64_t t = 0; ok && !stop.abort->load(std::memory_order_relaxed); ++t) {
            int64_t t0 = now_ns();
            *tagp = static_cast<std::byte>(tag(t, false));
            ok = l.send() && l.arrive(tag(t, true)) && l.repost();
            if (!ok) break;
            int64_t t1 = now_ns();
            rtt_->record_transaction(t0, t1);
            ++l.sc.messages;
            stop.publish(l.sc);
            if (t1 >= stop.deadline_ns) break;
        }
        // Abort or failure: the peer may be gone; the end is sent only after a clean run.
        if (ok && !l.sc.error) l.finish(true);
    } else {
        for (uint64_t t = 0; ok; ++t) {
            ok = l.arrive(tag(t, false));
            if (!ok || l.ended) break;
            ok = l.repost();
            *tagp = static_cast<std::byte>(tag(t, true));
            ok = ok && l.send();
            if (!ok) break;
            ++l.sc.messages;
            stop.publish(l.sc);
        }
        if (ok) l.finish(false);
    }
    l.report();
    return l.sc;
}

}  // namespace zc
