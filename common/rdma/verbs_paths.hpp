#pragma once
// The verbs data paths. Each runs one stream's hot loop over all its QPs on an already pinned
// thread: work requests are built in arrays made before the loop, posted in chains of --postlist,
// signalled every Nth, and completions are taken in batches; no allocation, no virtual call.
//
//   rdma-write: the sender RDMA-WRITEs message k of a QP into slot k % slots of the receiver's ring;
//     every quarter window (and whenever it would run out of credits) the write carries immediate
//     data = the messages landed since the last one. The receiver checks a pattern sample of each
//     announced slot, poisons it, counts its bytes, and returns the slots as credits (a zero-length
//     SEND with immediate). An end message (a SEND) names what was not yet announced.
//   rdma-send: the receiver keeps one receive posted per slot and reposts each as it consumes it;
//     the sender never has more SENDs out than credits (slots the receiver reposted and returned).
//   rdma-read: the receiver (the data sink) RDMA-READs from the sender's registered message into its
//     own slots, as many in flight as the window; it tells the passive source its count at the end.
//
// GPU memory (--buffer cuda[:N]) is either registered directly (the loops run as for host memory;
// a receiver checks its samples in GPU memory at the end) or staged through the registered host
// memory: rdma/verbs_stage.hpp, the policies the loops are templated on.
#include <variant>
#include <vector>

#include "cuda/stage_copy.hpp"
#include "measure/latency_histogram.hpp"
#include "rdma/rdma_connection.hpp"
#include "rdma/verbs_stage.hpp"
#include "core/stream_counters.hpp"
#include "socket/staged_stream.hpp"  // stage_failed

namespace zc {

// A side's sender and receiver policies, chosen from its connection's memory (data_memory.hpp).
using TxStage = std::variant<std::monostate, TxInPlace, TxStaged<cuda::CudaStageCopy>, TxStaged<HostStageCopy>>;
using RxStage =
    std::variant<std::monostate, RxInPlace, RxDirect, RxStaged<cuda::CudaStageCopy>, RxStaged<HostStageCopy>>;
void make_tx_stage(TxStage& s, RdmaConnection& c);
void make_rx_stage(RxStage& s, RdmaConnection& c);

class RdmaSender {  // rdma-write and rdma-send
public:
    explicit RdmaSender(RdmaConnection& c);  // posts the credit receives
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return c_.buffer(); }

private:
    template <class Stage>
    StreamCounters loop(const StopRule& stop, Stage& stage);
    RdmaConnection& c_;
    bool write_;
    TxStage stage_;
};

class RdmaReceiver {  // rdma-write and rdma-send
public:
    explicit RdmaReceiver(RdmaConnection& c);  // posts every receive
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return c_.buffer(); }
    const RxStage& stage() const { return stage_; }

private:
    template <class Stage>
    StreamCounters loop(const StopRule& stop, Stage& stage);
    RdmaConnection& c_;
    bool write_;
    RxStage stage_;
};

class RdmaReadSource {  // rdma-read's sender: passive, its buffer is read
public:
    explicit RdmaReadSource(RdmaConnection& c);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return c_.buffer(); }

private:
    RdmaConnection& c_;
};

class RdmaReadSink {  // rdma-read's receiver: issues the reads, bounded by the stop rule
public:
    explicit RdmaReadSink(RdmaConnection& c);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return c_.buffer(); }

private:
    template <class Stage>
    StreamCounters loop(const StopRule& stop, Stage& stage);
    RdmaConnection& c_;
    RxStage stage_;
};

// Runs loop(policy) on the policy a variant holds (once per stream, not per message). A staging
// copy that fails (CUDA) ends the stream with an error its side reports, not an exception on a
// data thread.
template <class Variant, class Loop>
StreamCounters run_staged(Variant& v, Loop&& loop) {
    try {
        return std::visit(
            [&](auto& st) -> StreamCounters {
                if constexpr (std::is_same_v<std::decay_t<decltype(st)>, std::monostate>) {
                    throw std::logic_error("a verbs path ran without its memory policy");
                } else {
                    return loop(st);
                }
            },
            v);
    } catch (const std::exception& e) {
        StreamCounters sc;
        stage_failed(sc, e);
        return sc;
    }
}
// Request/response (-t rr) over rdma-send and rdma-write, one QP per stream, one buffer per side
// that both sends the message and lands the peer's (the order is strict, so they never overlap).
// Each message goes in pieces of at most the port's max_msg_sz; its last byte carries a tag
// (transaction number and direction) that the side checks on arrival. How arrival is seen:
//   rdma-send: the last piece's receive completion (a receive per piece, reposted as taken);
//   rdma-write, --cq-mode poll: the landing buffer's last byte turning into the expected tag, as
//     ib_write_lat does: no receive, no completion on the arrival side, so a round trip is two
//     writes and nothing else. It relies on the device placing a write's bytes in order (every
//     RC NIC and Soft-RoCE do; the last piece is posted after the others on the same QP);
//   rdma-write, --cq-mode event: RDMA WRITE WITH IMMEDIATE on the last piece, because a thread
//     asleep on the completion channel needs a completion to wake it.
// The initiator ends with a zero-length SEND with immediate data that the responder takes as the end.
class RdmaRr {
public:
    // Posts the first receives. `rtt` (initiator only) is prepared here, outside the interval.
    RdmaRr(RdmaConnection& c, bool initiator, LatencyHistogram* rtt);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return c_.buffer(); }

    enum class Arrival { receive, write_imm, last_byte };

private:
    struct Loop;  // one run's state and steps (rdma_rr.cpp)

    RdmaConnection& c_;
    bool initiator_;
    LatencyHistogram* rtt_;
    Arrival arrival_;
    std::vector<ibv_send_wr> send_wrs_;  // one per piece, chained; built once
    std::vector<ibv_sge> send_sges_;
    std::vector<ibv_recv_wr> recv_wrs_;  // rdma-send: one per piece; write-imm: one without buffer
    std::vector<ibv_sge> recv_sges_;
};

// Message rate (-t msgrate) over rdma-send and rdma-write: the stream sender and receiver above,
// which already move one message per work request under credits, chained by --postlist, inline
// when --inline allows; each stream has its own QP(s) and CQ. messages = work requests counted by
// the receiver after checking their pattern.
template <typename Path>
class RdmaMsgRate {
public:
    explicit RdmaMsgRate(RdmaConnection& c) : p_(c) {}
    StreamCounters run(const StopRule& stop) { return p_.run(stop); }
    const HostBuffer& buffer() const { return p_.buffer(); }

private:
    Path p_;
};
using RdmaMsgRateSender = RdmaMsgRate<RdmaSender>;
using RdmaMsgRateReceiver = RdmaMsgRate<RdmaReceiver>;

// Shared by the three: receive posting and completion-status errors.
bool post_ctrl_recv(RdmaConnection& c, size_t q);
int fail_completion(StreamCounters& sc, const ibv_wc& wc);

}  // namespace zc
