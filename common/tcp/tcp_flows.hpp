#pragma once
// --flows N (neper's num_flows): one stream thread drives N TCP connections through one
// epoll, as servers run, instead of a thread per connection. The stream loops are level-triggered and
// move at most 64 KiB (or one -m) per ready flow per wake-up, so the flows take turns: written until
// EAGAIN instead, the first flows of a loopback test (whose send buffer drains as fast as it fills)
// took the whole run and 1000 flows' median was 0. The rr loops are edge-triggered: a flow's turn ends
// at its next wait for the peer anyway. Each flow's bytes are counted apart, for the per-flow
// min/median/max and Jain's index (tcp/flow_stats.hpp). One buffer per thread, shared by its
// flows (the bytes' content is not the point, as in neper); no allocation, no virtual call per message.
//
// A flows loop serves stream and maerts (TcpFlowsSender, TcpFlowsReceiver) and rr (TcpFlowsRrInitiator,
// TcpFlowsRrResponder: each flow one transaction in flight). A connection-per-transaction test (crr)
// fits the same set: TcpFlowSet's epoll and per-flow counts, with a flow's state machine that
// reconnects after each answer (the hook: FlowPhase and step() below are all a crr loop replaces).
#include <sys/epoll.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/stream_counters.hpp"
#include "core/unique_fd.hpp"
#include "measure/latency_histogram.hpp"
#include "memory/host_buffer.hpp"

namespace zc {

// A stream's connection with flows: its N TCP sockets, served by one thread through one epoll. Held by
// the data connection as a KindConnection (core/data_connection.hpp); tcp_fd() is the first flow's, for the
// read-backs of the socket settings and TCP_INFO.
struct TcpFlowSockets {
    std::vector<UniqueFd> fds;
    int tcp_fd() const { return fds.empty() ? -1 : fds.front().get(); }
    void interrupt();  // shutdown of every flow, which wakes the loop's epoll
};

// rr over flows: a flow is sending its message or receiving the peer's, and `done` bytes into it.
enum class FlowPhase : uint8_t { sending, receiving, finished };
struct FlowState {
    FlowPhase phase = FlowPhase::sending;
    uint64_t done = 0;
    int64_t t0 = 0;  // the initiator: when the transaction's request started
};

// What every flows loop holds: the flows' sockets (owned by the caller's data connection), their
// epoll, the thread's buffer and each flow's byte count.
class TcpFlowSet {
public:
    const std::vector<uint64_t>& flow_bytes() const { return bytes_; }
    const HostBuffer& buffer() const { return buf_; }

protected:
    // `fds` are connected TCP sockets; they are made non-blocking and added to the epoll with `events`
    // (EPOLLET included or not), each flow's index as its data.
    TcpFlowSet(const std::vector<int>& fds, uint32_t events, size_t message_size, size_t alignment);
    // One epoll_wait of at most 100 ms (so the caller looks at its deadline and abort flag): the number
    // of ready flows in events_, 0 on a timeout or a signal, -1 on an error (recorded in c).
    int wait(StreamCounters& c);
    // Waits for flows; a silence of 10 s while flows are still open is an error (EAGAIN), never a hang.
    // Returns the number of ready flows, or -1 when the loop must end (abort, error, stall).
    int wait_bounded(const StopRule& stop, StreamCounters& c);
    void forget(size_t flow);  // takes a finished flow out of the epoll
    // Counts a call's bytes, the flow's and the loop's, and the call; returns them.
    uint64_t moved(size_t f, ssize_t r, StreamCounters& c) {
        const auto b = static_cast<uint64_t>(r);
        bytes_[f] += b;
        c.bytes += b;
        ++c.ops;
        return b;
    }
    // TCP data segments all flows sent so far (TCP_INFO), for rr's segments per transaction.
    uint64_t segments_out() const;

    // rr: one call toward the rest of flow f's message, counted (recv: into the flow's bytes too). The
    // bytes moved; 0 when the peer ended the flow (recv); -1 on EAGAIN; -2 when it failed (c says why).
    ssize_t send_rest(size_t f, const FlowState& s, StreamCounters& c);
    ssize_t recv_rest(size_t f, const FlowState& s, StreamCounters& c);
    void finish(size_t f, FlowState& s);  // the flow is done: out of the epoll, one fewer open
    // rr's loop: `step(f)` (a flow's state machine, false on an error) for every ready flow, first for
    // every flow when `kick` (the initiator's first requests), until no flow is open; segments counted.
    template <class Step>
    StreamCounters serve(const StopRule& stop, bool kick, StreamCounters& c, Step step);
    size_t open_ = 0;

    std::vector<int> fds_;
    UniqueFd epoll_;
    HostBuffer buf_;
    std::vector<uint64_t> bytes_;
    std::vector<epoll_event> events_;
    int silent_ms_ = 0;
};

class TcpFlowsSender : public TcpFlowSet {
public:
    TcpFlowsSender(const std::vector<int>& fds, size_t message_size, size_t alignment);
    // Sends on every ready flow until the stop rule says stop (deadline, byte budget, abort), then shuts
    // each flow's write side down so the receiver sees every flow's end.
    StreamCounters run(const StopRule& stop);
};

class TcpFlowsReceiver : public TcpFlowSet {
public:
    TcpFlowsReceiver(const std::vector<int>& fds, size_t message_size, size_t alignment);
    // Reads every flow until each has ended (the sender shut it down), or the abort flag.
    StreamCounters run(const StopRule& stop);
};

class TcpFlowsRrInitiator : public TcpFlowSet {
public:
    // Sets TCP_NODELAY on every flow and prepares `rtt` (before the measured interval).
    TcpFlowsRrInitiator(const std::vector<int>& fds, size_t message_size, size_t alignment, LatencyHistogram& rtt);
    // Transactions on every flow until the deadline; a transaction in flight then completes, and each
    // flow's write side is shut down after its last answer. Counts bytes received; messages = transactions.
    StreamCounters run(const StopRule& stop);

private:
    bool step(size_t f, const StopRule& stop, StreamCounters& c);  // false: the flow failed (c says why)
    std::vector<FlowState> state_;
    LatencyHistogram& rtt_;
};

class TcpFlowsRrResponder : public TcpFlowSet {
public:
    TcpFlowsRrResponder(const std::vector<int>& fds, size_t message_size, size_t alignment);
    // Answers every whole request on every flow until each flow's initiator ended it; messages = answers.
    StreamCounters run(const StopRule& stop);

private:
    bool step(size_t f, StreamCounters& c);
    std::vector<FlowState> state_;
};

}  // namespace zc
