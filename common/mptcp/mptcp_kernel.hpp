#pragma once
// What the kernel says about one MPTCP connection: MPTCP_INFO (the connection), and per subflow its
// addresses and TCP_INFO, from MPTCP_FULL_INFO in one call where the kernel has it (6.5+), else from
// MPTCP_TCPINFO and MPTCP_SUBFLOW_ADDRS (5.16+). Debian 12's linux-libc-dev (6.1) lacks the later fields
// and MPTCP_FULL_INFO, so the kernel's layouts are declared here (include/uapi/linux/mptcp.h, 6.18).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zc {

constexpr int kSolMptcp = 284;  // SOL_MPTCP
constexpr int kMptcpInfoOpt = 1, kMptcpTcpInfoOpt = 2, kMptcpSubflowAddrsOpt = 3, kMptcpFullInfoOpt = 4;
constexpr uint32_t kMptcpInfoFlagFallback = 1u << 0;  // MPTCP_INFO_FLAG_FALLBACK

// struct mptcp_info as of 6.18 (96 bytes); an older kernel fills a prefix (5.7: up to csum_enabled, 6.5:
// the byte counters, 6.10: subflows_total).
struct KernelMptcpInfo {
    uint8_t subflows;  // additional subflows: the initial one is not counted (subflows_total is)
    uint8_t add_addr_signal, add_addr_accepted, subflows_max, add_addr_signal_max, add_addr_accepted_max;
    uint32_t flags, token;
    uint64_t write_seq, snd_una, rcv_nxt;
    uint8_t local_addr_used, local_addr_max, csum_enabled;
    uint32_t retransmits;
    uint64_t bytes_retrans, bytes_sent, bytes_received, bytes_acked;
    uint8_t subflows_total;
    uint8_t reserved[3];
    uint32_t last_data_sent, last_data_recv, last_ack_recv;
};
static_assert(sizeof(KernelMptcpInfo) == 96, "struct mptcp_info's layout");

// The connection's figures from MPTCP_INFO's bytes (`len` of them, as the kernel returned).
struct MptcpInfo {
    uint32_t flags = 0;
    uint32_t subflows_total = 0;  // 0: the kernel predates the field (6.10)
    bool has_bytes = false;       // the byte counters (6.5+)
    uint64_t bytes_sent = 0, bytes_received = 0, bytes_acked = 0, bytes_retrans = 0;
    bool fallback() const { return (flags & kMptcpInfoFlagFallback) != 0; }
};
MptcpInfo parse_mptcp_info(const void* bytes, size_t len);

struct MptcpSubflowRead {
    uint32_t id = 0;  // MPTCP_FULL_INFO's subflow id (0: read without it)
    std::string local, remote;
    uint64_t bytes_acked = 0, bytes_received = 0;  // TCP_INFO's tcpi_bytes_acked / tcpi_bytes_received
};

struct MptcpRead {
    bool mptcp = false;    // false: a plain TCP connection (fell back, or MPTCP_INFO refused)
    std::string fallback;  // why not MPTCP, in words ("" when it is)
    std::string source;    // the socket options the figures came from
    MptcpInfo info;
    std::vector<MptcpSubflowRead> subflows;
};
// Reads the connection on `fd` (an IPPROTO_MPTCP socket). Never throws: a refusal says fallback.
MptcpRead read_mptcp(int fd);

// This host's MPTCP zero-window probes so far (MPTcpExt WinProbe in /proc/net/netstat; Linux 6.10+), or
// nullopt where the kernel does not count them. Each probe re-sends one byte the connection had already
// data-acked: a subflow's tcpi_bytes_acked counts it, no connection counter does.
std::optional<uint64_t> read_mptcp_window_probes(const std::string& netstat = "/proc/net/netstat");

// "" when this host's kernel runs MPTCP sockets; otherwise what is wrong and what to do
// (`sysctl net.mptcp.enabled=1`, or a kernel with CONFIG_MPTCP).
std::string mptcp_unavailable();

}  // namespace zc
