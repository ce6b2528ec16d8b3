#pragma once
// A UDP data socket's set-up, and the kernel's own counters beside the receiver's: the options the
// UDP paths ask for (UDP_SEGMENT, UDP_GRO, SO_ZEROCOPY, SO_RXQ_OVFL) with errors that name the kernel
// feature, the path's largest segment payload, and /proc/net/snmp's Udp line.
#include <linux/udp.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

// The kernel's numbers, for C libraries whose headers predate them (uapi linux/udp.h, asm/socket.h).
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

namespace zc {

// Each throws std::runtime_error naming the option, the kernel's reason and what it needs.
void set_udp_segment(int fd, size_t gso_size);  // UDP_SEGMENT: one send() carries many datagrams (Linux 4.18)
void set_udp_gro(int fd);                       // UDP_GRO: recv() returns coalesced datagrams (Linux 5.0)
void set_udp_zerocopy(int fd);                  // SO_ZEROCOPY for MSG_ZEROCOPY sends (UDP: Linux 5.0)
void set_rxq_overflow(int fd);                  // SO_RXQ_OVFL: each recvmsg carries the socket's drop count
// The socket's drop count now (sk_drops, the counter SO_RXQ_OVFL reports), by one getsockopt(SO_MEMINFO)
// (Linux 4.12): a receiver reads it once at its end instead of a control message per datagram. nullopt
// where the kernel does not say.
std::optional<uint64_t> socket_drops(int fd);
// Bounded waits on a blocking socket: recv returns EAGAIN after `ms`.
void set_udp_receive_timeout(int fd, int ms);

// The largest payload one datagram of this connected socket carries unfragmented: the path MTU
// (IP_MTU / IPV6_MTU) less the IP and UDP headers; 0 when the kernel does not say.
size_t path_mtu_payload(int fd);

// /proc/net/snmp's "Udp:" counters that say the kernel dropped datagrams.
struct UdpSnmp {
    uint64_t in_datagrams = 0;
    uint64_t in_errors = 0;
    uint64_t rcvbuf_errors = 0;
    uint64_t sndbuf_errors = 0;
    bool valid = false;
};
// Parses the text of /proc/net/snmp (the header line names the columns; a missing column stays 0).
UdpSnmp parse_udp_snmp(const std::string& text);
UdpSnmp read_udp_snmp(const std::string& path = "/proc/net/snmp");

// Where UDP GSO's segmentation runs for this interface: "device" (the NIC's tx-udp-segmentation),
// "software" (the kernel segments before the driver), or "none" for lo, which passes the whole
// buffer up without cutting it; "" when the features cannot be read.
std::string gso_segmentation_where(const std::string& interface);

}  // namespace zc
