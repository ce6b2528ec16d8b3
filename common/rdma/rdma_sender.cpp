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
    StreamCounters sc;
    CqWaiter waiter(c_, stop.abort);
    const size_t nq = c_.qp_count();
    const uint64_t msg = c_.message_size();
    const RdmaOptions& o = c_.options();
    uint32_t depth = std::min(o.tx_depth, c_.send_depth() - 2);        // room for the end message
    if constexpr (Stage::staged) depth = std::min(depth, c_.slots());  // one bounce slot per send in flight
    const uint32_t signal_every = std::max(1u, depth / 4);
    const uint32_t postlist = std::min(o.postlist, depth);
    const bool may_inline = o.inline_size > 0;
    std::vector<QpTx> tx(nq);  // all per-run state is made here, before the first message
    std::vector<ibv_send_wr> wrs(postlist);
    std::vector<ibv_sge> sges(postlist);
    for (size_t q = 0; q < nq; ++q) tx[q].credits = tx[q].slots = c_.peer(q).slots;
    const uint32_t announce = rdma_wire::announce_every(tx[0].slots);
    ibv_wc wc[CqWaiter::kBatch];
    uint64_t credit_waits = 0, inline_sends = 0;
    uint32_t posts_unclocked = 0;
    uint64_t clocked_bytes = 0;

    // Applies completions: returned credits, finished sends. False on a failed completion.
    auto apply = [&](int n) {
        for (int i = 0; i < n; ++i) {
            if (wc[i].status != IBV_WC_SUCCESS) return fail_completion(sc, wc[i]) != 0;
            size_t q = wc[i].wr_id >> 32;
            if (wc[i].opcode & IBV_WC_RECV) {
                tx[q].credits += ntohl(wc[i].imm_data);
                if (!post_ctrl_recv(c_, q)) return CqWaiter::fail(sc, EIO, "ibv_post_recv") != 0;
            } else {
                tx[q].outstanding -= static_cast<uint32_t>(wc[i].wr_id);
                stage.completed(q, static_cast<uint32_t>(wc[i].wr_id));  // their bounce slots are free
                stage.top_up(q, stop);
            }
        }
        return true;
    };
    if constexpr (Stage::staged) {
        for (size_t s = 0; s < nq; ++s) stage.top_up(s, stop);  // the first window, before the first post
    }

    size_t q = 0;
    size_t len = stop.next_length(sc.bytes, msg);
    bool ok = true;
    while (len && ok) {
        // A QP with a free slot at the receiver and room in its send queue, round-robin.
        auto has_room = [&](size_t i) { return tx[i].credits != 0 && tx[i].outstanding < depth; };
        if (!(ok = next_qp_with_room(q, nq, has_room, waiter, wc, sc, apply, credit_waits))) break;
        QpTx& t = tx[q];
        const PeerBuffer& peer = c_.peer(q);
        uint32_t k = 0;
        while (len && k < postlist && t.credits && t.outstanding < depth) {
            ibv_send_wr& wr = wrs[k];
            std::byte* from = stage.ready(q, t.posted++);
            sges[k] = ibv_sge{reinterpret_cast<uint64_t>(from), static_cast<uint32_t>(len), c_.data_lkey()};
            wr.wr_id = uint64_t(q) << 32;
            wr.sg_list = &sges[k];
            wr.num_sge = 1;
            wr.next = nullptr;
            wr.send_flags = may_inline && len <= c_.max_inline() ? IBV_SEND_INLINE : 0;
            inline_sends += wr.send_flags != 0;
            if (k) wrs[k - 1].next = &wr;
            --t.credits;
            if (write_) {
                wr.opcode = IBV_WR_RDMA_WRITE;
                wr.wr.rdma.remote_addr = peer.addr + uint64_t(t.slot) * msg;
                wr.wr.rdma.rkey = peer.rkey;
                t.slot = t.slot + 1 == t.slots ? 0 : t.slot + 1;
                ++t.unannounced;
                t.last_length = len;
                // Announce every quarter window, and before running dry (credits come back only for
                // announced slots). A short (last) message is left to the end message, which has its length.
                if (len == msg && (t.unannounced >= announce || t.credits == 0)) {
                    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
                    wr.imm_data = htonl(t.unannounced);
                    t.unannounced = 0;
                }
            } else {
                wr.opcode = IBV_WR_SEND;
            }
            ++t.outstanding;
            if (++t.since_signal >= signal_every) {
                wr.send_flags |= IBV_SEND_SIGNALED;
                wr.wr_id |= t.since_signal;  // one completion frees this many entries
                t.since_signal = 0;
            }
            sc.bytes += len;
            ++sc.messages;
            ++k;
            // With a time limit the clock is read once per chain (below), not beside every message.
            if (stop.byte_budget) len = stop.next_length(sc.bytes, msg);
        }
        // With a time limit the clock is read every 32 posts or 256 KiB, whichever comes first: a
        // clock read can cost more than a small post (a guest whose clock source is the HPET traps
        // on every read), and the overshoot stays within a few tens of small messages.
        if (!stop.byte_budget && (++posts_unclocked >= 32 || sc.bytes - clocked_bytes >= (256u << 10))) {
            posts_unclocked = 0;
            clocked_bytes = sc.bytes;
            len = stop.next_length(sc.bytes, msg);
        } else if (!stop.byte_budget && stop.abort->load(std::memory_order_relaxed)) {
            len = 0;
        }
        ++sc.ops;  // one ibv_post_send
        stop.publish(sc);
        ibv_send_wr* bad = nullptr;
        if (ibv_post_send(c_.qp(q), wrs.data(), &bad) != 0) {
            CqWaiter::fail(sc, errno ? errno : EIO, "ibv_post_send");
            ok = false;
            break;
        }
        q = q + 1 == nq ? 0 : q + 1;
        int n = waiter.poll(wc);  // take what is there without waiting
        if (n < 0)
            ok = CqWaiter::fail(sc, EIO, "ibv_poll_cq") != 0;
        else if (n > 0)
            ok = apply(n);
    }

    // End of stream, per QP: a signalled end message (rdma-send needs a credit for it: it lands in a
    // posted receive), then wait until everything posted has completed.
    for (size_t e = 0; ok && e < nq; ++e) {
        QpTx& t = tx[e];
        while (ok && ((!write_ && t.credits == 0) || t.outstanding >= c_.send_depth() - 1)) {
            int n = waiter.wait(wc, sc);
            ok = n > 0 && apply(n);
        }
        if (!ok) break;
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
        if (ibv_post_send(c_.qp(e), &wr, &bad) != 0) ok = CqWaiter::fail(sc, errno ? errno : EIO, "ibv_post_send") != 0;
    }
    for (size_t e = 0; ok && e < nq; ++e) {
        while (ok && tx[e].outstanding > 0) {
            int n = waiter.wait(wc, sc);
            ok = n > 0 && apply(n);
        }
    }
    c_.info().credit_waits += credit_waits;
    sc.staging = stage.counts();
    c_.info().inline_sends += inline_sends;
    c_.info().data_sends += sc.messages;
    c_.info().post_calls += sc.ops;
    return sc;
}

}  // namespace zc
