// rdma-read (see verbs_paths.hpp): the sink pulls; the source only waits for the sink's end message.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "rdma/cq_waiter.hpp"
#include "rdma/qp_rotation.hpp"
#include "rdma/verbs_paths.hpp"

namespace zc {

RdmaReadSource::RdmaReadSource(RdmaConnection& c) : c_(c) {
    for (size_t q = 0; q < c.qp_count(); ++q)
        if (!post_ctrl_recv(c, q)) throw std::runtime_error("ibv_post_recv failed");
}

StreamCounters RdmaReadSource::run(const StopRule& stop) {
    StreamCounters sc;
    // Passive for the whole test: no stall limit; a vanished sink shows as an rdma_cm disconnect.
    CqWaiter waiter(c_, stop.abort, 0);
    ibv_wc wc[CqWaiter::kBatch];
    size_t ended = 0;
    while (ended < c_.qp_count()) {
        int n = waiter.wait(wc, sc);
        if (n == 0) break;
        for (int i = 0; i < n; ++i) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                fail_completion(sc, wc[i]);
                return sc;
            }
            if (!(wc[i].opcode & IBV_WC_RECV)) continue;
            rdma_wire::EndMessage em;
            std::memcpy(&em, c_.ctrl_recv(wc[i].wr_id >> 32), sizeof(em));
            if (em.magic != rdma_wire::kMagic) {
                CqWaiter::fail(sc, EBADMSG, "rdma-read end message");
                return sc;
            }
            // What the sink read from us and verified: the receiver's count, reported back.
            sc.bytes += em.bytes;
            sc.ops += em.unannounced;
            stop.publish(sc);
            ++ended;
        }
    }
    return sc;
}

RdmaReadSink::RdmaReadSink(RdmaConnection& c) : c_(c) { make_rx_stage(stage_, c); }

namespace {
struct QpRead {
    uint64_t posted = 0, done = 0;  // reads posted / verified (their slot is posted % slots)
    uint32_t since_signal = 0;
    uint32_t unverified = 0;  // completed by a signalled WR's completion, not yet checked
    uint64_t bytes = 0;
    bool end_sent = false;
};
}  // namespace

StreamCounters RdmaReadSink::run(const StopRule& stop) {
    return run_staged(stage_, [&](auto& st) { return loop(stop, st); });
}

template <class Stage>
StreamCounters RdmaReadSink::loop(const StopRule& stop, Stage& stage) {
    StreamCounters sc;
    CqWaiter waiter(c_, stop.abort);
    const size_t nq = c_.qp_count();
    const uint64_t msg = c_.message_size();
    const RdmaOptions& o = c_.options();
    const uint32_t slots = c_.slots();
    const uint32_t window = std::min({slots, o.tx_depth, c_.send_depth() - 2});
    const uint32_t signal_every = std::max(1u, window / 4);
    const uint32_t postlist = std::min(o.postlist, window);
    std::vector<QpRead> rd(nq);
    std::vector<uint64_t> lengths(nq * slots);  // length of the read in each slot
    std::vector<ibv_send_wr> wrs(postlist);
    std::vector<ibv_sge> sges(postlist);
    ibv_wc wc[CqWaiter::kBatch];
    uint64_t window_waits = 0;  // times every QP's window was full (not reported: the sink waits on itself)
    uint64_t requested = 0;     // bytes asked for (in flight or done): what the stop rule budgets

    // A completion covering `k` WRs of QP q: the oldest k reads have landed; check and count them.
    auto land = [&](size_t q, uint32_t k) {
        QpRead& r = rd[q];
        for (uint32_t j = 0; j < k && r.done < r.posted; ++j) {
            uint32_t s = static_cast<uint32_t>(r.done % slots);
            uint64_t len = lengths[q * slots + s];
            if (!stage.land(q, s, len)) {
                CqWaiter::fail(sc, EBADMSG, "pattern check (a read did not bring what the source holds)");
                return false;
            }
            sc.bytes += len;
            r.bytes += len;
            ++sc.ops;
            stop.publish(sc);
            ++r.done;
        }
        // Staged: the slots are read into again only once their copies to GPU memory are done.
        stage.settle(q, [](uint32_t) { return true; });
        return true;
    };
    size_t ends_delivered = 0;  // end messages' completions, whichever wait takes them
    auto apply = [&](int n) {
        for (int i = 0; i < n; ++i) {
            if (wc[i].status != IBV_WC_SUCCESS) return fail_completion(sc, wc[i]) != 0;
            if (wc[i].opcode == IBV_WC_SEND) ++ends_delivered;
            if (!land(wc[i].wr_id >> 32, static_cast<uint32_t>(wc[i].wr_id))) return false;
        }
        return true;
    };

    size_t q = 0;
    size_t len = stop.next_length(requested, msg);
    bool ok = true;
    while (len && ok) {
        auto has_room = [&](size_t i) { return rd[i].posted - rd[i].done < window; };
        if (!(ok = next_qp_with_room(q, nq, has_room, waiter, wc, sc, apply, window_waits))) break;
        QpRead& r = rd[q];
        const PeerBuffer& peer = c_.peer(q);
        uint32_t k = 0;
        while (len && k < postlist && r.posted - r.done < window) {
            uint32_t s = static_cast<uint32_t>(r.posted % slots);
            lengths[q * slots + s] = len;
            sges[k] = ibv_sge{reinterpret_cast<uint64_t>(c_.slot(q, s)), static_cast<uint32_t>(len), c_.data_lkey()};
            ibv_send_wr& wr = wrs[k];
            wr.wr_id = uint64_t(q) << 32;
            wr.sg_list = &sges[k];
            wr.num_sge = 1;
            wr.next = nullptr;
            wr.opcode = IBV_WR_RDMA_READ;
            wr.send_flags = 0;
            wr.wr.rdma.remote_addr = peer.addr;
            wr.wr.rdma.rkey = peer.rkey;
            if (k) wrs[k - 1].next = &wr;
            if (++r.since_signal >= signal_every) {
                wr.send_flags = IBV_SEND_SIGNALED;
                wr.wr_id |= r.since_signal;
                r.since_signal = 0;
            }
            ++r.posted;
            requested += len;
            ++k;
            len = stop.next_length(requested, msg);
        }
        ibv_send_wr* bad = nullptr;
        if (ibv_post_send(c_.qp(q), wrs.data(), &bad) != 0) {
            ok = CqWaiter::fail(sc, errno ? errno : EIO, "ibv_post_send") != 0;
            break;
        }
        q = q + 1 == nq ? 0 : q + 1;
        int n = waiter.poll(wc);
        if (n < 0)
            ok = CqWaiter::fail(sc, EIO, "ibv_poll_cq") != 0;
        else if (n > 0)
            ok = apply(n);
    }
    // The end: per QP a signalled SEND with our count; its completion also covers the reads before it
    // (a send queue completes in order), so the unsignalled tail lands with it.
    for (size_t e = 0; ok && e < nq; ++e) {
        QpRead& r = rd[e];
        auto* end = reinterpret_cast<rdma_wire::EndMessage*>(c_.ctrl_send(e));
        // The count is known only when every read before it has landed: drain the QP first.
        if (r.since_signal > 0) {
            // A small signalled read (into the control area, never counted) completes after the
            // unsignalled tail, so its completion tells us the tail landed.
            ibv_sge flush{reinterpret_cast<uint64_t>(c_.ctrl_recv(e)),
                          static_cast<uint32_t>(std::min<uint64_t>(8, msg)), c_.ctrl_lkey()};
            ibv_send_wr wr{};
            wr.sg_list = &flush;
            wr.num_sge = 1;
            wr.wr_id = (uint64_t(e) << 32) | r.since_signal;
            wr.opcode = IBV_WR_RDMA_READ;
            wr.send_flags = IBV_SEND_SIGNALED;
            wr.wr.rdma.remote_addr = c_.peer(e).addr;
            wr.wr.rdma.rkey = c_.peer(e).rkey;
            r.since_signal = 0;
            ibv_send_wr* bad = nullptr;
            if (ibv_post_send(c_.qp(e), &wr, &bad) != 0)
                ok = CqWaiter::fail(sc, errno ? errno : EIO, "ibv_post_send") != 0;
        }
        while (ok && r.done < r.posted) {
            int n = waiter.wait(wc, sc);
            ok = n > 0 && apply(n);
        }
        if (!ok) break;
        *end = rdma_wire::EndMessage{rdma_wire::kMagic, static_cast<uint32_t>(r.done), 0, r.bytes};
        ibv_sge sge{reinterpret_cast<uint64_t>(end), sizeof(*end), c_.ctrl_lkey()};
        ibv_send_wr wr{};
        wr.wr_id = uint64_t(e) << 32;  // covers no read
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_SEND;
        wr.send_flags = IBV_SEND_SIGNALED | (c_.max_inline() >= sizeof(*end) ? IBV_SEND_INLINE : 0);
        ibv_send_wr* bad = nullptr;
        if (ibv_post_send(c_.qp(e), &wr, &bad) != 0) ok = CqWaiter::fail(sc, errno ? errno : EIO, "ibv_post_send") != 0;
        r.end_sent = ok;
    }
    // Wait for the end messages to be delivered, so the source has its count before we leave.
    size_t ends_sent = 0;
    for (auto& r : rd) ends_sent += r.end_sent;
    while (ok && ends_delivered < ends_sent) {
        int n = waiter.wait(wc, sc);
        ok = n > 0 && apply(n);
    }
    if (!sc.error && !stage.verify_at_end()) {
        CqWaiter::fail(sc, EBADMSG,
                       "pattern check in GPU memory (a read did not reach GPU memory as the source holds it)");
    }
    sc.staging = stage.counts();
    return sc;
}

}  // namespace zc
