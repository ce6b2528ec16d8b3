#include "udp/udp_socket.hpp"

#include <linux/sock_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/unique_fd.hpp"
#include "socket/zerocopy_completions.hpp"
#include "system/netdev_features.hpp"
#include "udp/udp_wire.hpp"

namespace zc {

namespace {
void must(int rc, const std::string& what) {
    if (rc != 0) throw std::runtime_error("the kernel refused " + what + " (" + std::strerror(errno) + ")");
}
}  // namespace

void set_udp_segment(int fd, size_t gso_size) {
    int v = static_cast<int>(gso_size);
    must(::setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &v, sizeof(v)),
         "UDP_SEGMENT " + std::to_string(gso_size) + ": udp-gso needs Linux 4.18 or later");
}

void set_udp_gro(int fd) {
    int one = 1;
    must(::setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one)), "UDP_GRO: --rx gro needs Linux 5.0 or later");
}

void set_udp_zerocopy(int fd) {
    int one = 1;
    must(::setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)),
         "SO_ZEROCOPY: udp-msgzc (MSG_ZEROCOPY over UDP) needs Linux 5.0 or later");
}

void set_rxq_overflow(int fd) {
    int one = 1;
    must(::setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)), "SO_RXQ_OVFL");
}

std::optional<uint64_t> socket_drops(int fd) {
    uint32_t mem[SK_MEMINFO_VARS] = {};
    socklen_t len = sizeof(mem);
    // A kernel whose array ends before the drops (or that has no SO_MEMINFO) does not say.
    if (::getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) != 0 || len <= SK_MEMINFO_DROPS * sizeof(uint32_t))
        return std::nullopt;
    return mem[SK_MEMINFO_DROPS];
}

void set_udp_receive_timeout(int fd, int ms) {
    timeval tv{ms / 1000, (ms % 1000) * 1000};
    must(::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO");
}

size_t path_mtu_payload(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
    int mtu = 0;
    socklen_t ml = sizeof(mtu);
    bool v6 = ss.ss_family == AF_INET6;
    if (::getsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU : IP_MTU, &mtu, &ml) != 0 || mtu <= 0) return 0;
    size_t headers = v6 ? kUdpIpv6Headers : kUdpIpv4Headers;
    size_t payload = static_cast<size_t>(mtu) > headers ? static_cast<size_t>(mtu) - headers : 0;
    return std::min(payload, kMaxUdpDatagram);
}

UdpSnmp parse_udp_snmp(const std::string& text) {
    std::istringstream in(text);
    std::string header, values, line;
    while (std::getline(in, line)) {
        if (line.rfind("Udp: ", 0) != 0) continue;
        if (header.empty())
            header = line;
        else {
            values = line;
            break;
        }
    }
    UdpSnmp s;
    if (values.empty()) return s;
    std::istringstream h(header.substr(5)), v(values.substr(5));
    std::string name;
    uint64_t value = 0;
    while (h >> name && v >> value) {
        if (name == "InDatagrams")
            s.in_datagrams = value;
        else if (name == "InErrors")
            s.in_errors = value;
        else if (name == "RcvbufErrors")
            s.rcvbuf_errors = value;
        else if (name == "SndbufErrors")
            s.sndbuf_errors = value;
    }
    s.valid = true;
    return s;
}

UdpSnmp read_udp_snmp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return parse_udp_snmp(ss.str());
}

std::string gso_segmentation_where(const std::string& interface) {
    if (interface == "lo") return "none";
    auto features = read_netdev_features(interface);
    if (!features) return {};
    return feature_state(*features, "tx-udp-segmentation").active ? "device" : "software";
}

}  // namespace zc
