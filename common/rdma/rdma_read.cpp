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

// One run of the sink's loop: all its state, made before the first read, and the loop's steps
// (stream, end each QP, await the ends). Members of one template, inlined as the lambdas they were:
// no allocation or virtual call per message.
template <class Stage>
class ReadRun {
public:
    ReadRun(RdmaConnection& c, const StopRule& stop, Stage& stage)
        : c_(c),
          stop_(stop),
          stage_(stage),
          waiter_(c, stop.abort),
          nq_(c.qp_count()),
          msg_(c.message_size()),
          slots_(c.slots()),
          window_(std::min({slots_, c.options().tx_depth, c.send_depth() - 2})),
          signal_every_(std::max(1u, window_ / 4)),
          postlist_(std::min(c.options().postlist, window_)),
          rd_(nq_),
          lengths_(nq_ * slots_),
          wrs_(postlist_),
          sges_(postlist_) {}

    // The reads, round-robin over the QPs in chains of --postlist, as many in flight as the window,
    // until the stop rule says stop. False when the loop ended on an error (sc_ says which).
    bool stream() {
        size_t q = 0;
        size_t len = stop_.next_length(requested_, msg_);
        while (len) {
            auto has_room = [&](size_t i) { return rd_[i].posted - rd_[i].done < window_; };
            auto apply = [&](int n) { return this->apply(n); };
            if (!next_qp_with_room(q, nq_, has_room, waiter_, wc_, sc_, apply, window_waits_)) return false;
            len = chain(q, len);
            ibv_send_wr* bad = nullptr;
            if (ibv_post_send(c_.qp(q), wrs_.data(), &bad) != 0)
                return CqWaiter::fail(sc_, errno ? errno : EIO, "ibv_post_send") != 0;
            q = q + 1 == nq_ ? 0 : q + 1;
            int n = waiter_.poll(wc_);
            if (n < 0) return CqWaiter::fail(sc_, EIO, "ibv_poll_cq") != 0;
            if (n > 0 && !apply(n)) return false;
        }
        return true;
    }

    // The end: per QP a signalled SEND with our count; its completion also covers the reads before it
    // (a send queue completes in order), so the unsignalled tail lands with it.
    bool end_each_qp() {
        for (size_t e = 0; e < nq_; ++e) {
            // The count is known only when every read before it has landed: drain the QP first.
            if (!flush_tail(e)) return false;
            while (rd_[e].done < rd_[e].posted)
                if (!wait_and_apply()) return false;
            if (!send_end(e)) return false;
        }
        return true;
    }

    // Waits for the end messages to be delivered, so the source has its count before we leave.
    void await_ends() {
        size_t ends_sent = 0;
        for (auto& r : rd_) ends_sent += r.end_sent;
        while (ends_delivered_ < ends_sent)
            if (!wait_and_apply()) return;
    }

    StreamCounters finish() {
        if (!sc_.error && !stage_.verify_at_end()) {
            CqWaiter::fail(sc_, EBADMSG,
                           "pattern check in GPU memory (a read did not reach GPU memory as the source holds it)");
        }
        sc_.staging = stage_.counts();
        return sc_;
    }

private:
    // A completion covering `k` WRs of QP q: the oldest k reads have landed; check and count them.
    bool land(size_t q, uint32_t k) {
        QpRead& r = rd_[q];
        for (uint32_t j = 0; j < k && r.done < r.posted; ++j) {
            uint32_t s = static_cast<uint32_t>(r.done % slots_);
            uint64_t len = lengths_[q * slots_ + s];
            if (!stage_.land(q, s, len)) {
                CqWaiter::fail(sc_, EBADMSG, "pattern check (a read did not bring what the source holds)");
                return false;
            }
            sc_.bytes += len;
            r.bytes += len;
            ++sc_.ops;
            stop_.publish(sc_);
            ++r.done;
        }
        // Staged: the slots are read into again only once their copies to GPU memory are done.
        stage_.settle(q, [](uint32_t) { return true; });
        return true;
    }

    bool apply(int n) {
        for (int i = 0; i < n; ++i) {
            if (wc_[i].status != IBV_WC_SUCCESS) return fail_completion(sc_, wc_[i]) != 0;
            if (wc_[i].opcode == IBV_WC_SEND) ++ends_delivered_;
            if (!land(wc_[i].wr_id >> 32, static_cast<uint32_t>(wc_[i].wr_id))) return false;
        }
        return true;
    }

    bool wait_and_apply() {
        int n = waiter_.wait(wc_, sc_);
        return n > 0 && apply(n);
    }

    // Builds QP q's chain of reads in wrs_ while its window has room; returns the next read's length
    // (0: the stop rule says stop).
    size_t chain(size_t q, size_t len) {
        QpRead& r = rd_[q];
        const PeerBuffer& peer = c_.peer(q);
        uint32_t k = 0;
        while (len && k < postlist_ && r.posted - r.done < window_) {
            uint32_t s = static_cast<uint32_t>(r.posted % slots_);
            lengths_[q * slots_ + s] = len;
            sges_[k] = ibv_sge{reinterpret_cast<uint64_t>(c_.slot(q, s)), static_cast<uint32_t>(len), c_.data_lkey()};
            ibv_send_wr& wr = wrs_[k];
            wr.wr_id = uint64_t(q) << 32;
            wr.sg_list = &sges_[k];
            wr.num_sge = 1;
            wr.next = nullptr;
            wr.opcode = IBV_WR_RDMA_READ;
            wr.send_flags = 0;
            wr.wr.rdma.remote_addr = peer.addr;
            wr.wr.rdma.rkey = peer.rkey;
            if (k) wrs_[k - 1].next = &wr;
            if (++r.since_signal >= signal_every_) {
                wr.send_flags = IBV_SEND_SIGNALED;
                wr.wr_id |= r.since_signal;
                r.since_signal = 0;
            }
            ++r.posted;
            requested_ += len;
            ++k;
            len = stop_.next_length(requested_, msg_);
        }
        return len;
    }

    // A small signalled read (into the control area, never counted) completes after the unsignalled
    // tail, so its completion tells us the tail landed.
    bool flush_tail(size_t e) {
        QpRead& r = rd_[e];
        if (r.since_signal == 0) return true;
        ibv_sge flush{reinterpret_cast<uint64_t>(c_.ctrl_recv(e)), static_cast<uint32_t>(std::min<uint64_t>(8, msg_)),
                      c_.ctrl_lkey()};
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
            return CqWaiter::fail(sc_, errno ? errno : EIO, "ibv_post_send") != 0;
        return true;
    }

    bool send_end(size_t e) {
        QpRead& r = rd_[e];
        auto* end = reinterpret_cast<rdma_wire::EndMessage*>(c_.ctrl_send(e));
        *end = rdma_wire::EndMessage{rdma_wire::kMagic, static_cast<uint32_t>(r.done), 0, r.bytes};
        ibv_sge sge{reinterpret_cast<uint64_t>(end), sizeof(*end), c_.ctrl_lkey()};
        ibv_send_wr wr{};
        wr.wr_id = uint64_t(e) << 32;  // covers no read
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_SEND;
        wr.send_flags = IBV_SEND_SIGNALED | (c_.max_inline() >= sizeof(*end) ? IBV_SEND_INLINE : 0);
        ibv_send_wr* bad = nullptr;
        if (ibv_post_send(c_.qp(e), &wr, &bad) != 0)
            return CqWaiter::fail(sc_, errno ? errno : EIO, "ibv_post_send") != 0;
        r.end_sent = true;
        return true;
    }

    RdmaConnection& c_;
    const StopRule& stop_;
    Stage& stage_;
    StreamCounters sc_;
    CqWaiter waiter_;
    const size_t nq_;
    const uint64_t msg_;
    const uint32_t slots_;
    const uint32_t window_;
    const uint32_t signal_every_;
    const uint32_t postlist_;
    std::vector<QpRead> rd_;
    std::vector<uint64_t> lengths_;  // length of the read in each slot
    std::vector<ibv_send_wr> wrs_;
    std::vector<ibv_sge> sges_;
    ibv_wc wc_[CqWaiter::kBatch];
    uint64_t window_waits_ = 0;  // times every QP's window was full (not reported: the sink waits on itself)
    uint64_t requested_ = 0;     // bytes asked for (in flight or done): what the stop rule budgets
    size_t ends_delivered_ = 0;  // end messages' completions, whichever wait takes them
};

}  // namespace

StreamCounters RdmaReadSink::run(const StopRule& stop) {
    return run_staged(stage_, [&](auto& st) { return loop(stop, st); });
}

template <class Stage>
StreamCounters RdmaReadSink::loop(const StopRule& stop, Stage& stage) {
    ReadRun<Stage> run(c_, stop, stage);
    // Each step runs only when the one before ended well; the GPU check and the counts run either way.
    if (run.stream() && run.end_each_qp()) run.await_ends();
    return run.finish();
}

}  // namespace zc
