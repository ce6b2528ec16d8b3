#pragma once
// What a UDP stream's loop counts beside its bytes: the receiver's own accounting of the sequence
// numbers every datagram carries (RFC 3550's loss, reordering, duplicates and jitter, as iperf3 counts
// them), the kernel's word on drops, GSO/GRO batching. Plain integers, each loop's own (common/udp/),
// filled in the loop and read by the udp kind's block at the side's end (udp/udp_ops.cpp), which carries them
// (udp_info.hpp).
#include <algorithm>
#include <cstdint>

namespace zc {

// UDP rr: how long an initiator waits for one answer before it counts the request lost.
inline constexpr int kUdpRrWaitMs = 500;

struct UdpCounts {
    // Sender: datagrams (GSO segments) handed to the kernel. Receiver: distinct datagrams received.
    uint64_t datagrams = 0;
    uint64_t sender_datagrams = 0;  // receiver: what the sender's end marker said it sent (0: none came)
    bool end_marker = false;        // receiver: the sender's end marker arrived
    uint64_t lost = 0;              // receiver: sent and never received (sender_datagrams - datagrams, else gaps)
    uint64_t reordered = 0;         // receiver: arrived after a later one
    uint64_t duplicates = 0;        // receiver: a sequence number seen before
    double jitter_s = 0;            // receiver: RFC 3550 interarrival jitter (the largest over streams)
    uint64_t kernel_drops = 0;      // receiver: the socket's drop count at its end (SO_MEMINFO)
    uint64_t gro_buffers = 0;       // receiver with UDP_GRO: coalesced buffers read (their datagrams are counted)
    uint64_t rr_timeouts = 0;       // rr initiator: requests whose answer did not come within the wait
    uint64_t gso_size = 0;          // sender: the segment size in force (0: no GSO)
    // The whole host's /proc/net/snmp Udp drop counters over the loop (not summed over streams: the
    // streams' spans overlap, so the largest is kept). snmp_valid: they were read.
    uint64_t snmp_in_errors = 0, snmp_rcvbuf_errors = 0, snmp_sndbuf_errors = 0;
    bool snmp_valid = false;

    void add(const UdpCounts& o) {
        datagrams += o.datagrams;
        sender_datagrams += o.sender_datagrams;
        end_marker = end_marker || o.end_marker;
        lost += o.lost;
        reordered += o.reordered;
        duplicates += o.duplicates;
        jitter_s = std::max(jitter_s, o.jitter_s);
        kernel_drops += o.kernel_drops;
        gro_buffers += o.gro_buffers;
        rr_timeouts += o.rr_timeouts;
        gso_size = std::max(gso_size, o.gso_size);
        snmp_in_errors = std::max(snmp_in_errors, o.snmp_in_errors);
        snmp_rcvbuf_errors = std::max(snmp_rcvbuf_errors, o.snmp_rcvbuf_errors);
        snmp_sndbuf_errors = std::max(snmp_sndbuf_errors, o.snmp_sndbuf_errors);
        snmp_valid = snmp_valid || o.snmp_valid;
    }
};

}  // namespace zc
