#include "mptcp/mptcp_kernel.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/transport_registry.hpp"
#include "core/unique_fd.hpp"
#include "tcp/tcp_info.hpp"

namespace zc {

namespace {

constexpr size_t kMaxSubflows = 8;  // the path manager's limit is 8 (MPTCP_PM_ADDR_MAX)

// struct mptcp_subflow_data, the header of MPTCP_TCPINFO's and MPTCP_SUBFLOW_ADDRS's answers.
struct SubflowData {
    uint32_t size_subflow_data, num_subflows, size_kernel, size_user;
} __attribute__((aligned(8)));

struct SubflowAddrs {  // struct mptcp_subflow_addrs: two sockaddr_storage
    sockaddr_storage local, remote;
};

struct SubflowInfo {  // struct mptcp_subflow_info (MPTCP_FULL_INFO)
    uint32_t id;
    SubflowAddrs addrs;
};

struct FullInfo {  // struct mptcp_full_info
    uint32_t size_tcpinfo_kernel, size_tcpinfo_user, size_sfinfo_kernel, size_sfinfo_user;
    uint32_t num_subflows, size_arrays_user;
    uint64_t subflow_info, tcp_info;  // user pointers
    KernelMptcpInfo mptcp_info;
};

std::string endpoint_text(const sockaddr_storage& ss) {
    char host[INET6_ADDRSTRLEN] = {};
    uint16_t port = 0;
    if (ss.ss_family == AF_INET) {
        const auto* s4 = reinterpret_cast<const sockaddr_in*>(&ss);
        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
        port = ntohs(s4->sin_port);
        return std::string(host) + ":" + std::to_string(port);
    }
    if (ss.ss_family != AF_INET6) return "?";
    const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(s6->sin6_port));
}

MptcpSubflowRead subflow_of(uint32_t id, const SubflowAddrs& a, const KernelTcpInfo& t, size_t tcp_len) {
    MptcpSubflowRead s;
    s.id = id;
    s.local = endpoint_text(a.local);
    s.remote = endpoint_text(a.remote);
    if (tcp_len >= offsetof(KernelTcpInfo, bytes_received) + sizeof(t.bytes_received)) {
        s.bytes_acked = t.bytes_acked;
        s.bytes_received = t.bytes_received;
    }
    return s;
}

// MPTCP_FULL_INFO (6.5+): the connection and its subflows in one call. False when the kernel lacks it.
bool read_full(int fd, MptcpRead& out) {
    SubflowInfo sf[kMaxSubflows]{};
    KernelTcpInfo tcp_infos[kMaxSubflows]{};
    FullInfo f{};
    f.size_tcpinfo_user = sizeof(KernelTcpInfo);
    f.size_sfinfo_user = sizeof(SubflowInfo);
    f.size_arrays_user = kMaxSubflows;
    f.subflow_info = reinterpret_cast<uintptr_t>(sf);
    f.tcp_info = reinterpret_cast<uintptr_t>(tcp_infos);
    socklen_t len = sizeof(f);
    if (getsockopt(fd, kSolMptcp, kMptcpFullInfoOpt, &f, &len) != 0) return false;
    size_t info_len = len > offsetof(FullInfo, mptcp_info) ? len - offsetof(FullInfo, mptcp_info) : 0;
    out.info = parse_mptcp_info(&f.mptcp_info, info_len);
    size_t tcp_len = std::min<size_t>(f.size_tcpinfo_kernel, sizeof(KernelTcpInfo));
    for (uint32_t i = 0; i < std::min<uint32_t>(f.num_subflows, kMaxSubflows); ++i)
        out.subflows.push_back(subflow_of(sf[i].id, sf[i].addrs, tcp_infos[i], tcp_len));
    out.source = "MPTCP_FULL_INFO";
    return true;
}

// MPTCP_TCPINFO and MPTCP_SUBFLOW_ADDRS (5.16+): two calls, subflows in the same order.
void read_subflows(int fd, MptcpRead& out) {
    struct {
        SubflowData h;
        KernelTcpInfo t[kMaxSubflows];
    } tcp_infos{};
    struct {
        SubflowData h;
        SubflowAddrs a[kMaxSubflows];
    } addrs{};
    tcp_infos.h = {sizeof(SubflowData), 0, 0, sizeof(KernelTcpInfo)};
    addrs.h = {sizeof(SubflowData), 0, 0, sizeof(SubflowAddrs)};
    socklen_t tl = sizeof(tcp_infos), al = sizeof(addrs);
    if (getsockopt(fd, kSolMptcp, kMptcpTcpInfoOpt, &tcp_infos, &tl) != 0) return;
    bool have_addrs = getsockopt(fd, kSolMptcp, kMptcpSubflowAddrsOpt, &addrs, &al) == 0;
    size_t tcp_len = std::min<size_t>(tcp_infos.h.size_kernel, sizeof(KernelTcpInfo));
    uint32_t n = std::min<uint32_t>(tcp_infos.h.num_subflows, kMaxSubflows);
    for (uint32_t i = 0; i < n; ++i)
        out.subflows.push_back(subflow_of(0, have_addrs ? addrs.a[i] : SubflowAddrs{}, tcp_infos.t[i], tcp_len));
    out.source = have_addrs ? "MPTCP_TCPINFO, MPTCP_SUBFLOW_ADDRS" : "MPTCP_TCPINFO";
}

}  // namespace

MptcpInfo parse_mptcp_info(const void* bytes, size_t len) {
    KernelMptcpInfo k{};
    std::memcpy(&k, bytes, std::min(len, sizeof(k)));
    auto has = [&](size_t end) { return len >= end; };
    MptcpInfo m;
    m.flags = k.flags;
    if (has(offsetof(KernelMptcpInfo, bytes_acked) + sizeof(k.bytes_acked))) {
        m.has_bytes = true;
        m.bytes_sent = k.bytes_sent;
        m.bytes_received = k.bytes_received;
        m.bytes_acked = k.bytes_acked;
        m.bytes_retrans = k.bytes_retrans;
    }
    if (has(offsetof(KernelMptcpInfo, subflows_total) + 1)) m.subflows_total = k.subflows_total;
    return m;
}

MptcpRead read_mptcp(int fd) {
    MptcpRead out;
    if (!read_full(fd, out)) {
        KernelMptcpInfo k{};
        socklen_t len = sizeof(k);
        if (getsockopt(fd, kSolMptcp, kMptcpInfoOpt, &k, &len) != 0) {
            // EOPNOTSUPP: the connection fell back to TCP (the peer or a middlebox dropped MPTCP's options).
            out.fallback = std::string("MPTCP_INFO refused: ") + std::strerror(errno) +
                           " (the connection fell back to plain TCP: the peer did not take MPTCP)";
            return out;
        }
        out.info = parse_mptcp_info(&k, len);
        read_subflows(fd, out);
    }
    if (out.info.fallback()) {
        out.fallback = "MPTCP_INFO says fallback (the connection runs as plain TCP: the peer did not take MPTCP)";
        return out;
    }
    out.mptcp = true;
    return out;
}

std::optional<uint64_t> read_mptcp_window_probes(const std::string& netstat) {
    std::ifstream in(netstat);
    std::string names, values;
    // Two lines per group: "MPTcpExt: Name ..." then "MPTcpExt: value ...", in the same order.
    while (std::getline(in, names)) {
        if (names.rfind("MPTcpExt:", 0) != 0 || !std::getline(in, values)) continue;
        std::istringstream n(names), v(values);
        for (std::string name, value; n >> name && v >> value;)
            if (name == "WinProbe") return std::stoull(value);
        return std::nullopt;
    }
    return std::nullopt;
}

std::string mptcp_unavailable() {
    const std::string enable =
        std::string("turn it on with `sysctl net.mptcp.enabled=1` (as root), or use -T ") + transport_name(Transport{});
    std::ifstream f("/proc/sys/net/mptcp/enabled");
    int enabled = 1;
    if (f >> enabled && enabled == 0)
        return std::string("MPTCP is off on this host (net.mptcp.enabled = 0): ") + enable;
    UniqueFd probe(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 262));  // IPPROTO_MPTCP
    if (probe) return "";
    int e = errno;
    if (e == EPROTONOSUPPORT || e == ENOPROTOOPT || e == EINVAL)
        return std::string("this kernel opens no MPTCP socket (") + std::strerror(e) +
               "): it needs CONFIG_MPTCP and net.mptcp.enabled = 1; " + enable;
    return std::string("socket(IPPROTO_MPTCP): ") + std::strerror(e);
}

}  // namespace zc
