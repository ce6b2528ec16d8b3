#pragma once
// The UDP receivers, one class for the three modes (--rx):
//   copy   one recvmsg() per datagram
//   mmsg   recvmmsg(): up to 64 datagrams per call
//   gro    UDP_GRO: one recvmsg() returns datagrams the kernel coalesced (the cmsg gives their segment
//          size); the sequence header is read at every segment boundary
// Each datagram's header feeds the sequence accountant (seq_accountant.hpp). The socket's drop count is
// read once, at the end (SO_MEMINFO): SO_RXQ_OVFL would put it in a control message on every datagram
// after the first drop, a cost per datagram the kernel's floor does not pay; only a kernel
// without SO_MEMINFO's drops still gets SO_RXQ_OVFL. The stream ends at the sender's end marker (answered, so the
// sender stops repeating it). Every wait is bounded: the socket's receive timeout ticks every 100 ms;
// a receiver that gets nothing by 5 s past the test's end stops with an error that says so; one whose
// sender went silent without an end marker stops 2 s after the test's end and reports the marker missing.
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/stream_counters.hpp"
#include "udp/udp_counts.hpp"
#include "memory/host_buffer.hpp"
#include "udp/seq_accountant.hpp"
#include "udp/udp_socket.hpp"

namespace zc {

enum class UdpRxMode { copy, mmsg, gro };

struct UdpRecvOptions {
    UdpRxMode mode = UdpRxMode::copy;
    size_t datagram_size = 1472;  // the largest datagram expected (-m, or the GSO segment size)
    size_t alignment = 4096;
    bool count_messages = false;  // msgrate: messages = datagrams
};

class UdpReceiver {
public:
    static constexpr unsigned kBatch = 64;  // recvmmsg: datagrams per call
    UdpReceiver(int fd, const UdpRecvOptions& o);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }
    // UDP's own counts of the run (datagrams, sequence accounting, drops, GSO/GRO), read after run() by
    // the kind's block (udp/udp_ops.cpp).
    const UdpCounts& udp_counts() const { return udp_; }

private:
    // One datagram's header into the accountant, its bytes counted. Returns false at the end marker.
    bool take_datagram(const std::byte* data, size_t len, int64_t now, StreamCounters& c);
    // A GRO buffer: `len` bytes cut in `segment` pieces, each a datagram. Returns false at the end marker.
    bool take_segments(const std::byte* data, size_t len, size_t segment, int64_t now, StreamCounters& c);
    void read_control(const msghdr& m, size_t& segment);

    int fd_;
    UdpRecvOptions o_;
    size_t slot_;  // bytes per receive slot
    HostBuffer buf_;
    std::vector<iovec> iov_;
    std::vector<mmsghdr> msgs_;
    bool drops_by_cmsg_;         // no SO_MEMINFO drops: SO_RXQ_OVFL's control message on each datagram
    std::vector<char> control_;  // per slot: UDP_GRO's segment size, SO_RXQ_OVFL's count; empty: none asked
    SeqAccountant acct_;
    uint64_t drops_ = 0;  // the socket's drop count (as last seen, with SO_RXQ_OVFL)
    // The host's Udp counters at set-up, before the start barrier: the sender starts at the barrier too, and a
    // starved socket drops within microseconds, before this thread would have read them in run().
    UdpSnmp snmp0_;
    UdpCounts udp_;
};

}  // namespace zc
