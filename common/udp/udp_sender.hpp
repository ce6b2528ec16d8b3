#pragma once
// The UDP senders, one class for the three paths (they differ in a few flags of one call, so one loop
// serves them; the mode is fixed at construction and tested outside the per-datagram work):
//   udp        one datagram per send(), or --batch N datagrams per sendmmsg()
//   udp-gso    one send() carries a buffer the kernel cuts into --gso-size datagrams (UDP_SEGMENT)
//   udp-msgzc  the same with MSG_ZEROCOPY: the kernel pins the pages; a ring slot is written again only
//              after its completion came back (socket/zerocopy_completions.hpp), the copied share counted
// Every datagram (each GSO segment) opens with its sequence header (udp_wire.hpp), written at each
// segment boundary before the call. With -b the stop rule keeps the rate by the sender's clock (core/pacer.hpp),
// and where the egress qdisc is fq the kernel paces the packets too (SO_MAX_PACING_RATE). At the end it sends its end
// marker, carrying how many datagrams it sent, until the receiver answers (a bounded wait).
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/pacer.hpp"
#include "core/stream_counters.hpp"
#include "udp/udp_counts.hpp"
#include "memory/host_buffer.hpp"
#include "tcp/send_ring.hpp"

namespace zc {

struct UdpSendOptions {
    size_t bytes_per_call = 1472;  // -m: one datagram (udp), or the buffer one GSO call carries
    size_t gso_size = 0;           // udp-gso, udp-msgzc: segment size; 0 = the path MTU's payload
    bool gso = false;
    bool zerocopy = false;  // udp-msgzc
    unsigned batch = 1;     // udp: datagrams per sendmmsg
    uint64_t bitrate = 0;   // -b, bits per second; 0 = as fast as it can
    size_t alignment = 4096;
    bool count_messages = false;  // msgrate: messages = datagrams
};

class UdpSender {
public:
    // On a connected UDP socket. Sets UDP_SEGMENT / SO_ZEROCOPY / the kernel's pacing (when the qdisc
    // of the interface its address is on is fq) as the options ask; throws std::runtime_error naming
    // the limit or the kernel feature that is missing.
    UdpSender(int fd, const UdpSendOptions& o);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return ring_ ? ring_->buffer(0) : buf_; }
    size_t gso_size() const { return gso_size_; }  // segment size in force (0: no GSO)
    // UDP's own counts of the run (datagrams, sequence accounting, drops, GSO/GRO), read after run() by
    // the kind's block (udp/udp_ops.cpp).
    const UdpCounts& udp_counts() const { return udp_; }

private:
    // One call of `len` bytes from `data`: headers at each segment, then the send. Returns false on an error.
    bool send_call(std::byte* data, size_t len, int flags, int64_t now, StreamCounters& c);
    // After a failed send: retries where errno says to (EINTR; ENOBUFS on udp-msgzc, after reaping); false
    // with the error in `c` otherwise.
    bool send_again(std::byte* data, size_t len, int flags, StreamCounters& c);
    bool reap(StreamCounters& c, int wait_ms);
    void send_end(StreamCounters& c);

    int fd_;
    UdpSendOptions o_;
    size_t gso_size_ = 0;
    HostBuffer buf_;
    std::optional<SendRing> ring_;  // udp-msgzc
    uint32_t next_zc_id_ = 0;
    std::vector<iovec> iov_;  // --batch: one header per datagram of buf_
    std::vector<mmsghdr> msgs_;
    PacingMethod method_ = PacingMethod::none;
    uint64_t seq_ = 0;
    UdpCounts udp_;
};

}  // namespace zc
