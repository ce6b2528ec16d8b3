// rdma-write and rdma-send, sending side (see verbs_paths.hpp for the protocol).
#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>

#include "rdma/cq_waiter.hpp"
#include "rdma/qp_rotation.hpp"
#include "rdma/verbs_paths.hpp"

namespace zc {

bool post_ctrl_recv(RdmaConnection& c, size_t q) {
    ibv_sge sge{reinterpret_cast<uint64_t>(c.ctrl_recv(q)), 64, c.ctrl_lkey()};
    ibv_recv_wr wr{};
    wr.wr_id = uint64_t(q) << 32;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    return ibv_post_recv(c.qp(q), &wr, &bad) == 0;
}

int fail_completion(StreamCounters& sc, const ibv_wc& wc) {
    // A flushed or unacknowledged request means the other end went away (killed, closed).
    bool gone = wc.status == IBV_WC_RETRY_EXC_ERR || wc.status == IBV_WC_RNR_RETRY_EXC_ERR ||
                wc.status == IBV_WC_WR_FLUSH_ERR || wc.status == IBV_WC_REM_ABORT_ERR;
    return CqWaiter::fail(sc, gone ? ECONNRESET : EIO, ibv_wc_status_str(wc.status));
}

namespace {

struct QpTx {
    uint32_t credits = 0;      // slots the receiver has free for us
    uint32_t outstanding = 0;  // posted, completion not yet seen
    uint32_t since_signal = 0;
    uint32_t unannounced = 0;  // rdma-write: written since the last immediate
    uint32_t slot = 0;         // rdma-write: next slot of the receiver's ring
    uint32_t slots = 0;
    uint64_t last_length = 0;
    uint64_t posted = 0;  // data messages posted (a staged sender's slot index)
};

// One run of the sender's loop: all its state, made before the first message, and the loop's steps
// (stream, end each QP, drain). Members of one template, inlined as the lambdas they were: no
// allocation or virtual call per message.
template <class Stage>
class SendRun {
public:
    SendRun(RdmaConnection& c, bool write, const StopRule& stop, Stage& stage)
        : c_(c),
          write_(write),
          stop_(stop),
          stage_(stage),
          waiter_(c, stop.abort),
          nq_(c.qp_count()),
          msg_(c.message_size()),
          depth_(window(c)),
          signal_every_(std::max(1u, depth_ / 4)),
          postlist_(std::min(c.options().postlist, depth_)),
          may_inline_(c.options().inline_size > 0),
          tx_(nq_),
          wrs_(postlist_),
          sges_(postlist_) {
        for (size_t q = 0; q < nq_; ++q) tx_[q].credits = tx_[q].slots = c_.peer(q).slots;
        announce_ = rdma_wire::announce_every(tx_[0].slots);
    }

    // The data messages, round-robin over the QPs in chains of --postlist, until the stop rule says
    // stop. False when the loop ended on an error (sc_ says which).
    bool stream() {
        if constexpr (Stage::staged) {
            for (size_t s = 0; s < nq_; ++s) stage_.top_up(s, stop_);  // the first window, before the first post
        }
        size_t q = 0;
        size_t len = stop_.next_length(sc_.bytes, msg_);
        while (len) {
            // A QP with a free slot at the receiver and room in its send queue, round-robin.
            auto has_room = [&](size_t i) { return tx_[i].credits != 0 && tx_[i].outstanding < depth_; };
            auto apply = [&](int n) { return this->apply(n); };
            if (!next_qp_with_room(q, nq_, has_room, waiter_, wc_, sc_, apply, credit_waits_)) return false;
            len = chain(q, len);
            len = clock_check(len);
            ++sc_.ops;  // one ibv_post_send
            stop_.publish(sc_);
            ibv_send_wr* bad = nullptr;
            if (ibv_post_send(c_.qp(q), wrs_.data(), &bad) != 0) {
                CqWaiter::fail(sc_, errno ? errno : EIO, "ibv_post_send");
                return false;
            }
            q = q + 1 == nq_ ? 0 : q + 1;
            if (!take_ready()) return false;
        }
        return true;
    }

    // End of stream, per QP: a signalled end message (rdma-send needs a credit for it: it lands in a
    // posted receive).
    bool end_each_qp() {
        for (size_t e = 0; e < nq_; ++e)
            if (!end_qp(e)) return false;
        return true;
    }

    // Waits until everything posted has completed.
    bool drain() {
        for (size_t e = 0; e < nq_; ++e) {
            while (tx_[e].outstanding > 0)
                if (!wait_and_apply()) return false;
        }
        return true;
    }

    StreamCounters finish() {
        c_.info().credit_waits += credit_waits_;
        sc_.staging = stage_.counts();
        c_.info().inline_sends += inline_sends_;
        c_.info().data_sends += sc_.messages;
        c_.info().post_calls += sc_.ops;
        return sc_;
    }

private:
    static uint32_t window(const RdmaConnection& c) {
        uint32_t depth = std::min(c.options().tx_depth, c.send_depth() - 2);  // room for the end message
        if constexpr (Stage::staged) depth = std::min(depth, c.slots());      // one bounce slot per send in flight
        return depth;
    }

    // Applies completions: returned credits, finished sends. False on a failed completion.
    bool apply(int n) {
        for (int i = 0; i < n; ++i) {
            const ibv_wc& w = wc_[i];
            if (w.status != IBV_WC_SUCCESS) return fail_completion(sc_, w) != 0;
            size_t q = w.wr_id >> 32;
            if (w.opcode & IBV_WC_RECV) {
                tx_[q].credits += ntohl(w.imm_data);
                if (!post_ctrl_recv(c_, q)) return CqWaiter::fail(sc_, EIO, "ibv_post_recv") != 0;
            } else {
                tx_[q].outstanding -= static_cast<uint32_t>(w.wr_id);
                stage_.completed(q, static_cast<uint32_t>(w.wr_id));  // their bounce slots are free
                stage_.top_up(q, stop_);
            }
        }
        return true;
    }

    // Completions there now, taken without waiting.
    bool take_ready() {
        int n = waiter_.poll(wc_);
        if (n < 0) return CqWaiter::fail(sc_, EIO, "ibv_poll_cq") != 0;
        return n == 0 || apply(n);
    }

    bool wait_and_apply() {
        int n = waiter_.wait(wc_, sc_);
        return n > 0 && apply(n);
    }

    // Builds QP q's chain in wrs_ while it has credits and room; returns the length of the next
    // message (0: the byte budget is spent).
    size_t chain(size_t q, size_t len) {
        QpTx& t = tx_[q];
        uint32_t k = 0;
        while (len && k < postlist_ && t.credits && t.outstanding < depth_) {
            build(q, t, k, len);
            sc_.bytes += len;
            ++sc_.messages;
            ++k;
            // With a time limit the clock is read once per chain (clock_check), not beside every message.
            if (stop_.byte_budget) len = stop_.next_length(sc_.bytes, msg_);
        }
        return len;
    }

    // Work request k of the chain: one message of `len` bytes on QP q.
    void build(size_t q, QpTx& t, uint32_t k, size_t len) {
        ibv_send_wr& wr = wrs_[k];
        std::byte* from = stage_.ready(q, t.posted++);
        sges_[k] = ibv_sge{reinterpret_cast<uint64_t>(from), static_cast<uint32_t>(len), c_.data_lkey()};
        wr.wr_id = uint64_t(q) << 32;
        wr.sg_list = &sges_[k];
        wr.num_sge = 1;
        wr.next = nullptr;
        wr.send_flags = may_inline_ && len <= c_.max_inline() ? IBV_SEND_INLINE : 0;
        inline_sends_ += wr.send_flags != 0;
        if (k) wrs_[k - 1].next = &wr;
        --t.credits;
        if (write_)
            place_write(wr, t, c_.peer(q), len);
        else
            wr.opcode = IBV_WR_SEND;
        ++t.outstanding;
        if (++t.since_signal >= signal_every_) {
            wr.send_flags |= IBV_SEND_SIGNALED;
            wr.wr_id |= t.since_signal;  // one completion frees this many entries
            t.since_signal = 0;
        }
    }

    // rdma-write: the next slot of the receiver's ring, and the immediate that announces the slots written.
    void place_write(ibv_send_wr& wr, QpTx& t, const PeerBuffer& peer, size_t len) {
        wr.opcode = IBV_WR_RDMA_WRITE;
        wr.wr.rdma.remote_addr = peer.addr + uint64_t(t.slot) * msg_;
        wr.wr.rdma.rkey = peer.rkey;
        t.slot = t.slot + 1 == t.slots ? 0 : t.slot + 1;
        ++t.unannounced;
        t.last_length = len;
        // Announce every quarter window, and before running dry (credits come back only for
        // announced slots). A short (last) message is left to the end message, which has its length.
        if (len == msg_ && (t.unannounced >= announce_ || t.credits == 0)) {
            wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
            wr.imm_data = htonl(t.unannounced);
            t.unannounced = 0;
        }
    }

    // With a time limit the clock is read every 32 posts or 256 KiB, whichever comes first: a
    // clock read can cost more than a small post (a guest whose clock source is the HPET traps
    // on every read), and the overshoot stays within a few tens of small messages.
    size_t clock_check(size_t len) {
        if (stop_.byte_budget) return len;
        if (++posts_unclocked_ >= 32 || sc_.bytes - clocked_bytes_ >= (256u << 10)) {
            posts_unclocked_ = 0;
            clocked_bytes_ = sc_.bytes;
            return stop_.next_length(sc_.bytes, msg_);
        }
        return stop_.abort->load(std::memory_order_relaxed) ? 0 : len;
    }

    bool end_qp(size_t e) {
        QpTx& t = tx_[e];
        while ((!write_ && t.credits == 0) || t.outstanding >= c_.send_depth() - 1)
            if (!wait_and_apply()) return false;
        auto* end = reinterpret_cast<rdma_wire::EndMessage*>(c_.ctrl_send(e));
        *end = rdma_wire::EndMessage{rdma_wire::kMagic, t.unannounced, t.last_length, 0};
        ibv_sge sge{reinterpret_cast<uint64_t>(end), sizeof(*end), c_.ctrl_lkey()};
        ibv_send_wr wr{};
        wr.wr_id = (uint64_t(e) << 32) | (t.since_signal + 1);
        wr.sg_list = &sge;
        // rdma-send: the immediate alone marks the end, with no payload: it lands in a data receive,
        // which may be smaller than the end message (msgrate's 2-byte messages).
        wr.num_sge = write_ ? 1 : 0;
        wr.opcode = write_ ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM;
        wr.imm_data = 0;
        wr.send_flags = IBV_SEND_SIGNALED | (c_.max_inline() >= sizeof(*end) ? IBV_SEND_INLINE : 0);
        if (!write_) --t.credits;
        ++t.outstanding;
        t.since_signal = 0;
        ibv_send_wr* bad = nullptr;
        if (ibv_post_send(c_.qp(e), &wr, &bad) != 0)
            return CqWaiter::fail(sc_, errno ? errno : EIO, "ibv_post_send") != 0;
        return true;
    }

    RdmaConnection& c_;
    const bool write_;
    const StopRule& stop_;
    Stage& stage_;
    StreamCounters sc_;
    CqWaiter waiter_;
    const size_t nq_;
    const uint64_t msg_;
    const uint32_t depth_;
    const uint32_t signal_every_;
    const uint32_t postlist_;
    const bool may_inline_;
    uint32_t announce_ = 0;
    std::vector<QpTx> tx_;
    std::vector<ibv_send_wr> wrs_;
    std::vector<ibv_sge> sges_;
    ibv_wc wc_[CqWaiter::kBatch];
    uint64_t credit_waits_ = 0, inline_sends_ = 0;
    uint32_t posts_unclocked_ = 0;
    uint64_t clocked_bytes_ = 0;
};

}  // namespace

RdmaSender::RdmaSender(RdmaConnection& c) : c_(c), write_(c.op() == RdmaOp::write) {
    make_tx_stage(stage_, c);
    for (size_t q = 0; q < c.qp_count(); ++q) {
        for (uint32_t i = 0; i < c.peer(q).slots + 2; ++i) {
            if (!post_ctrl_recv(c, q)) throw std::runtime_error("ibv_post_recv for credits failed");
        }
    }
}

StreamCounters RdmaSender::run(const StopRule& stop) {
    return run_staged(stage_, [&](auto& st) { return loop(stop, st); });
}

template <class Stage>
StreamCounters RdmaSender::loop(const StopRule& stop, Stage& stage) {
    SendRun<Stage> run(c_, write_, stop, stage);
    // Each step runs only when the one before ended well; the counts are kept either way.
    if (run.stream() && run.end_each_qp()) run.drain();
    return run.finish();
}

}  // namespace zc
