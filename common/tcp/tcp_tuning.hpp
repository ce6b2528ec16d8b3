#pragma once
// The per-socket TCP settings a user asks for (-C congestion control, --fq-rate pacing, --tos,
// --bind-dev), applied to a data socket before it connects (or to the listener, whose accepted sockets
// inherit them), and read back from the kernel, so each side reports what was in force, never just
// what was asked. Every failure says what to do instead.
#include <cstdint>
#include <string>
#include <vector>

#include "tcp/tcp_stats.hpp"

namespace zc {

struct TcpTuning {
    std::string congestion;       // TCP_CONGESTION; "" = the kernel's default
    uint64_t max_pacing_Bps = 0;  // SO_MAX_PACING_RATE in bytes/s; 0 = unlimited
    int tos = -1;                 // IP_TOS / IPV6_TCLASS, 0..255; -1 = untouched
    std::string bind_dev;         // SO_BINDTODEVICE; "" = any
    bool any() const { return !congestion.empty() || max_pacing_Bps || tos >= 0 || !bind_dev.empty(); }
};

// Applies every setting of `t` to `fd`. Throws std::runtime_error naming the setting and the way out
// (an unknown algorithm lists /proc/sys/net/ipv4/tcp_available_congestion_control).
void apply_tcp_tuning(int fd, const TcpTuning& t);
TcpTuningInForce read_tcp_tuning(int fd);

// The kernel's algorithms (from `path`: a fixture in the unit tests), in its order.
std::vector<std::string> available_congestion_controls(
    const std::string& path = "/proc/sys/net/ipv4/tcp_available_congestion_control");
// The words for an algorithm the kernel refused: errno ENOENT (not loaded/built) or EPERM (not in
// net.ipv4.tcp_allowed_congestion_control, and no CAP_NET_ADMIN).
std::string congestion_problem(const std::string& name, int err, const std::vector<std::string>& available);

}  // namespace zc
