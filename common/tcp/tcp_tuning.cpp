#include "tcp/tcp_tuning.hpp"

#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace zc {

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
    return out.empty() ? "(none readable)" : out;
}

int socket_family(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    int domain = 0;
    socklen_t dlen = sizeof(domain);
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) == 0) return domain;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0) return ss.ss_family;
    return AF_INET;
}

}  // namespace

std::vector<std::string> available_congestion_controls(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string name; in >> name;) out.push_back(name);
    return out;
}

std::string congestion_problem(const std::string& name, int err, const std::vector<std::string>& available) {
    if (err == EPERM)
        return "congestion control '" + name +
               "' is loaded but not allowed for unprivileged sockets: add it to "
               "net.ipv4.tcp_allowed_congestion_control (sysctl), or run as root";
    return "congestion control '" + name + "' is not available in this kernel" +
           (err == ENOENT ? "" : std::string(" (") + std::strerror(err) + ")") + "; available: " + joined(available) +
           " (/proc/sys/net/ipv4/tcp_available_congestion_control; others may load with modprobe tcp_" + name + ")";
}

void apply_tcp_tuning(int fd, const TcpTuning& t) {
    // The device first: the route, and so the rest, follows from it.
    if (!t.bind_dev.empty() && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, t.bind_dev.c_str(),
                                          static_cast<socklen_t>(t.bind_dev.size())) != 0) {
        int e = errno;
        std::string why = e == ENODEV  ? "there is no such interface here (ip -br link lists them)"
                          : e == EPERM ? "not permitted (before Linux 5.7 it needs CAP_NET_RAW: run as root)"
                                       : std::strerror(e);
        throw std::runtime_error("--bind-dev " + t.bind_dev + ": " + why);
    }
    if (!t.congestion.empty() && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, t.congestion.c_str(),
                                            static_cast<socklen_t>(t.congestion.size())) != 0) {
        throw std::runtime_error(congestion_problem(t.congestion, errno, available_congestion_controls()));
    }
    if (t.max_pacing_Bps) {
        uint64_t rate = t.max_pacing_Bps;  // a 64-bit value since Linux 4.20; older kernels read 32 bits
        if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)) != 0) {
            uint32_t rate32 = static_cast<uint32_t>(std::min<uint64_t>(rate, std::numeric_limits<uint32_t>::max()));
            if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate32, sizeof(rate32)) != 0)
                throw std::runtime_error(std::string("--fq-rate: SO_MAX_PACING_RATE refused: ") + std::strerror(errno));
        }
    }
    if (t.tos >= 0) {
        int v = t.tos;
        int family = socket_family(fd);
        // An IPv6 socket may carry IPv4 (mapped addresses): set both, so either family gets the class.
        bool ok = family == AF_INET6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v)) == 0 : true;
        if (family == AF_INET || family == AF_INET6) {
            int r = setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v));
            if (family == AF_INET) ok = r == 0;
        }
        if (!ok) throw std::runtime_error("--tos " + std::to_string(t.tos) + ": " + std::strerror(errno));
    }
}

TcpTuningInForce read_tcp_tuning(int fd) {
    TcpTuningInForce r;
    char name[64] = {};
    socklen_t len = sizeof(name) - 1;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) == 0) r.congestion.assign(name, strnlen(name, len));
    uint64_t rate = 0;
    len = sizeof(rate);
    if (getsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, &len) == 0) {
        if (len == sizeof(uint32_t)) rate = static_cast<uint32_t>(rate);
        bool unlimited = rate == std::numeric_limits<uint64_t>::max() || (len == 4 && rate == 0xffffffffu);
        r.max_pacing_Bps = unlimited ? 0 : rate;
    }
    int v = 0;
    len = sizeof(v);
    int family = socket_family(fd);
    bool got = family == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, &len) == 0
                                  : getsockopt(fd, IPPROTO_IP, IP_TOS, &v, &len) == 0;
    r.tos = got ? v : -1;
    sockaddr_storage ss{};
    socklen_t sl = sizeof(ss);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &sl) == 0) {
        const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&ss);
        bool v4 = ss.ss_family == AF_INET || (ss.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr));
        r.family = v4 ? "IPv4" : ss.ss_family == AF_INET6 ? "IPv6" : "";
    }
    char dev[IFNAMSIZ + 1] = {};
    len = IFNAMSIZ;
    if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &len) == 0) r.bind_dev.assign(dev, strnlen(dev, len));
    return r;
}

}  // namespace zc
