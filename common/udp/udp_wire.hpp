#pragma once
// What a zcperf UDP datagram carries, and UDP's size limits. Every datagram (every GSO segment: the
// header is written at each segment boundary, so the receiver sees it whether the kernel, the device
// or GRO cut or merged the buffer) opens with a sequence header: the sender's datagram number and its
// send time (CLOCK_MONOTONIC ns, for RFC 3550's jitter). Three reserved numbers are control datagrams:
// the stream's hello, the sender's end marker (whose time field carries the datagrams it sent), and
// the receiver's answer to it. Little-endian on the wire.
#include <endian.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace zc {

inline constexpr size_t kUdpSeqHeader = 16;
inline constexpr size_t kMaxUdpDatagram = 65507;  // IPv4: 65535 - 20 (IP) - 8 (UDP)
inline constexpr unsigned kMaxGsoSegments = 64;   // the kernel's UDP_MAX_SEGMENTS
inline constexpr size_t kUdpIpv4Headers = 28;     // IP + UDP, taken off the path MTU for a segment's payload
inline constexpr size_t kUdpIpv6Headers = 48;

inline constexpr uint64_t kUdpHello = ~0ull - 2;   // a stream's first datagram, answered by the server
inline constexpr uint64_t kUdpEndAck = ~0ull - 1;  // the receiver saw the end marker
inline constexpr uint64_t kUdpEnd = ~0ull;         // the sender is done; time field = datagrams sent
inline constexpr uint64_t kUdpFirstControl = kUdpHello;

struct SeqHeader {
    uint64_t seq = 0;
    int64_t send_ns = 0;
};

inline void write_seq(std::byte* at, uint64_t seq, int64_t send_ns) {
    uint64_t s = htole64(seq), t = htole64(static_cast<uint64_t>(send_ns));
    std::memcpy(at, &s, 8);
    std::memcpy(at + 8, &t, 8);
}

inline SeqHeader read_seq(const std::byte* at) {
    uint64_t s, t;
    std::memcpy(&s, at, 8);
    std::memcpy(&t, at + 8, 8);
    return {le64toh(s), static_cast<int64_t>(le64toh(t))};
}

// The datagrams one call of `bytes` makes when cut into `gso_size` segments (0: no GSO, one datagram).
inline size_t segments_per_call(size_t bytes, size_t gso_size) {
    return gso_size == 0 ? 1 : (bytes + gso_size - 1) / gso_size;
}

// Why a UDP sender cannot cut `bytes` per call into datagrams of `gso_size` (0 = no GSO) over a path
// whose segments carry at most `mtu_payload` bytes (0 = not known yet), or "" when it can. `need_header`:
// the test counts sequence numbers, so every datagram needs room for the 16-byte header.
std::string udp_size_problem(size_t bytes, size_t gso_size, size_t mtu_payload, bool need_header);

}  // namespace zc
