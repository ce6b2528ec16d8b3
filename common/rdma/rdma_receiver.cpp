// rdma-write and rdma-send, receiving side (see verbs_paths.hpp). The receiver's count is the
// truth: it counts only messages it was told of (immediate data, end message) or took off its
// receive queue, and checks a pattern sample of each before counting it.
#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "rdma/cq_waiter.hpp"
#include "rdma/verbs_paths.hpp"

namespace zc {

namespace {

struct QpRx {
    uint32_t slot = 0;   // rdma-write: next slot to land
    uint32_t freed = 0;  // rdma-send: slots reposted but not yet returned as credits
    bool ended = false;
};

bool post_slot_recv(RdmaConnection& c, size_t q, uint32_t s) {
    ibv_sge sge{reinterpret_cast<uint64_t>(c.slot(q, s)), static_cast<uint32_t>(c.message_size()), c.data_lkey()};
    ibv_recv_wr wr{};
    wr.wr_id = (uint64_t(q) << 32) | s;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    return ibv_post_recv(c.qp(q), &wr, &bad) == 0;
}

// Returns `n` slots to the sender: a zero-length SEND with the count as immediate data, signalled
// (there are few: one per quarter window) so the send queue never fills with unreaped entries.
bool return_credits(RdmaConnection& c, size_t q, uint32_t n) {
    ibv_send_wr wr{};
    wr.wr_id = uint64_t(q) << 32 | 1;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.imm_data = htonl(n);
    wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
    ibv_send_wr* bad = nullptr;
    return ibv_post_send(c.qp(q), &wr, &bad) == 0;
}

}  // namespace

RdmaReceiver::RdmaReceiver(RdmaConnection& c) : c_(c), write_(c.op() == RdmaOp::write) {
    make_rx_stage(stage_, c);
    for (size_t q = 0; q < c.qp_count(); ++q) {
        bool ok = true;
        if (write_) {
            for (uint32_t i = 0; i < c.slots() + 2; ++i) ok = ok && post_ctrl_recv(c, q);
        } else {
            for (uint32_t s = 0; s < c.slots(); ++s) ok = ok && post_slot_recv(c, q, s);
        }
        if (!ok) throw std::runtime_error("ibv_post_recv failed while posting the receive queue");
    }
}

StreamCounters RdmaReceiver::run(const StopRule& stop) {
    return run_staged(stage_, [&](auto& st) { return loop(stop, st); });
}

template <class Stage>
StreamCounters RdmaReceiver::loop(const StopRule& stop, Stage& stage) {
    StreamCounters sc;
    CqWaiter waiter(c_, stop.abort);
    const size_t nq = c_.qp_count();
    const uint64_t msg = c_.message_size();
    const uint32_t slots = c_.slots();
    const uint32_t announce = rdma_wire::announce_every(slots);
    std::vector<QpRx> rx(nq);
    size_t ended = 0;
    ibv_wc wc[CqWaiter::kBatch];
    auto bad_data = [&] { return CqWaiter::fail(sc, EBADMSG, "pattern check (a message did not land as sent)"); };
    auto nothing = [](uint32_t) { return true; };

    while (ended < nq) {
        int n = waiter.wait(wc, sc);
        if (n == 0) break;
        for (int i = 0; i < n && !sc.error; ++i) {
            const ibv_wc& w = wc[i];
            if (w.status != IBV_WC_SUCCESS) {
                fail_completion(sc, w);
                break;
            }
            size_t q = w.wr_id >> 32;
            QpRx& r = rx[q];
            if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {  // rdma-write: this many more slots landed
                uint32_t k = ntohl(w.imm_data);
                for (uint32_t j = 0; j < k; ++j) {
                    if (!stage.land(q, r.slot, msg)) {
                        bad_data();
                        break;
                    }
                    r.slot = r.slot + 1 == slots ? 0 : r.slot + 1;
                    sc.bytes += msg;
                    ++sc.ops;
                    ++sc.messages;
                    stop.publish(sc);
                }
                if (sc.error) break;
                stage.settle(q, nothing);  // staged: the copies to GPU memory are done before the slots go back
                if (!post_ctrl_recv(c_, q) || !return_credits(c_, q, k)) CqWaiter::fail(sc, EIO, "ibv_post_send");
            } else if (w.opcode == IBV_WC_RECV && (w.wc_flags & IBV_WC_WITH_IMM)) {  // rdma-send: the end
                r.ended = true;
                ++ended;
            } else if (w.opcode == IBV_WC_RECV && !write_) {  // rdma-send: one message
                uint32_t s = static_cast<uint32_t>(w.wr_id);
                if (!stage.land(q, s, w.byte_len)) {
                    bad_data();
                    break;
                }
                sc.bytes += w.byte_len;
                ++sc.ops;
                ++sc.messages;
                stop.publish(sc);
                // In place: repost at once. Staged: the slot is reposted once its copy is done (settle).
                if (!Stage::staged && !post_slot_recv(c_, q, s)) {
                    CqWaiter::fail(sc, EIO, "ibv_post_recv");
                    break;
                }
                if (++r.freed >= announce) {
                    if (!stage.settle(q, [&](uint32_t slot) { return post_slot_recv(c_, q, slot); })) {
                        CqWaiter::fail(sc, EIO, "ibv_post_recv");
                        break;
                    }
                    if (!return_credits(c_, q, r.freed)) CqWaiter::fail(sc, EIO, "ibv_post_send");
                    r.freed = 0;
                }
            } else if (w.opcode == IBV_WC_RECV) {  // rdma-write: the end message
                rdma_wire::EndMessage em;
                std::memcpy(&em, c_.ctrl_recv(q), sizeof(em));
                if (em.magic != rdma_wire::kMagic || em.unannounced > slots) {
                    bad_data();
                    break;
                }
                for (uint32_t j = 0; j < em.unannounced; ++j) {
                    uint64_t len = j + 1 == em.unannounced ? em.last_length : msg;
                    if (len > msg || !stage.land(q, r.slot, len)) {
                        bad_data();
                        break;
                    }
                    r.slot = r.slot + 1 == slots ? 0 : r.slot + 1;
                    sc.bytes += len;
                    ++sc.ops;
                    ++sc.messages;
                    stop.publish(sc);
                }
                r.ended = true;
                ++ended;
            }
            // send completions (our credit messages) need nothing
        }
        if (sc.error) break;
    }
    // Staged: the copies still queued (rdma-send's last, unannounced messages, the end's tail) land
    // in GPU memory before the count is reported; then every slot is checked where it ended.
    for (size_t q = 0; q < nq && !sc.error; ++q) stage.settle(q, nothing);
    if (!sc.error && !stage.verify_at_end()) {
        CqWaiter::fail(sc, EBADMSG, "pattern check in GPU memory (a message did not reach GPU memory as sent)");
    }
    sc.staging = stage.counts();
    return sc;
}

}  // namespace zc
