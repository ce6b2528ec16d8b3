#pragma once
// crr and cc (netperf's TCP_CRR and TCP_CC): a new connection per transaction. The initiator connects,
// sends the request, reads the whole response and closes (cc: connects and closes); the responder
// accepts, reads the request, answers, and closes once the initiator has (cc: accepts and waits for the
// close). Per transaction the initiator makes socket, the bounding setsockopts, connect, send, recv and
// close, reads the clock three times (vDSO) and records two histograms: nothing is allocated, no
// virtual call. The responders of one test share the listener (the kernel hands each accept() to one
// of them), so they stop on a goodbye: a connection with no request (crr) or one byte (cc) that each
// initiator sends after its last transaction, one per responder.
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

#include "tcp/crr_close.hpp"
#include "core/stream_counters.hpp"
#include "measure/latency_histogram.hpp"
#include "memory/host_buffer.hpp"
#include "tcp/tcp_tuning.hpp"

namespace zc {

struct CrrShape {
    bool with_data = true;    // crr: a request and a response; cc: none
    size_t message_size = 1;  // request and response, bytes
    size_t alignment = 4096;
    CrrClose close = CrrClose::rst;
    TcpTuning tuning;  // applied to each new connection (its syscalls only when any is set)
};

class TcpCrrInitiator {
public:
    // `anchor`: the stream's data connection, whose peer address is where every transaction connects.
    // `whole` (the caller's, like rr's round trips) and the connect histogram are prepared here.
    TcpCrrInitiator(int anchor, const CrrShape& shape, LatencyHistogram& whole);
    // Transactions until the deadline or the abort flag (at least one), then the goodbye. messages =
    // transactions, bytes = response bytes read. Connect failing for lack of ports says so.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }
    const LatencyHistogram& connect_latency() const { return connect_; }  // socket() to connected

private:
    int open_socket(StreamCounters& c) const;
    void goodbye() const;

    sockaddr_storage peer_{};
    socklen_t peer_len_ = 0;
    int domain_ = 0, protocol_ = 0;  // socket()'s, the anchor's own (SO_DOMAIN, SO_PROTOCOL)
    CrrShape shape_;
    HostBuffer buf_;
    LatencyHistogram& whole_;
    LatencyHistogram connect_;
};

class TcpCrrResponder {
public:
    // `listener`: a listening socket (the stream's own descriptor of the test's one listener) with a
    // receive timeout, which accepted sockets inherit: every wait is bounded.
    TcpCrrResponder(int listener, const CrrShape& shape);
    // Serves connections until one initiator's goodbye; messages = transactions served.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    int listener_;
    CrrShape shape_;
    HostBuffer buf_;
};

}  // namespace zc
