#pragma once
// Request/response over UDP (netperf's UDP_RR): the initiator sends one datagram and waits for the
// answer, at most kUdpRrWaitMs; a request whose answer does not come in time is counted lost
// (rr_timeouts) and the next one goes out, so a lost datagram costs one bounded wait, never a hang.
// A request of 16 bytes or more carries its sequence number and the answer must carry the same (a
// late answer to a timed-out request is read and dropped); smaller ones carry none, and after a
// timeout whatever is queued is dropped before the next request. The responder echoes each request;
// the initiator ends the test with the end marker (udp_wire.hpp), repeated until answered.
#include <cstddef>
#include <cstdint>

#include "core/stream_counters.hpp"
#include "udp/udp_counts.hpp"
#include "measure/latency_histogram.hpp"
#include "memory/host_buffer.hpp"

namespace zc {

class UdpRrInitiator {
public:
    UdpRrInitiator(int fd, size_t message_size, size_t alignment, LatencyHistogram& rtt);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }
    const UdpCounts& udp_counts() const { return udp_; }  // requests unanswered (rr_timeouts), read after run()

private:
    int fd_;
    size_t message_size_;
    HostBuffer buf_;  // the request, then the answer (strictly in turn)
    LatencyHistogram& rtt_;
    UdpCounts udp_;
};

class UdpRrResponder {
public:
    UdpRrResponder(int fd, size_t message_size, size_t alignment);
    // Answers every request until the end marker, or until the initiator went silent past the test's end.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    int fd_;
    HostBuffer buf_;
};

}  // namespace zc
