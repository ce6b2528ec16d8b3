#pragma once
// The mptcp kind's report block (protocol/kind_block.hpp): per stream, whether the connection ran as
// MPTCP or fell back to TCP, the connection's byte counters (MPTCP_INFO) and each subflow's addresses and
// bytes (TCP_INFO's tcpi_bytes_acked / tcpi_bytes_received), with the check that the subflows' bytes add
// up to the connection's. One field table per struct drives both JSON directions.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mptcp/mptcp_kernel.hpp"
#include "protocol/kind_block.hpp"

namespace zc {

struct MptcpSubflowReport {
    uint32_t id = 0;
    std::string local, remote;
    uint64_t bytes_acked = 0, bytes_received = 0;
};

struct MptcpConnectionReport {
    bool mptcp = false;
    std::string fallback;  // why not MPTCP ("" when it is)
    std::string source;    // the socket options read
    uint32_t flags = 0;
    bool has_bytes = false;  // the kernel has MPTCP_INFO's byte counters (6.5+)
    uint64_t bytes_sent = 0, bytes_received = 0, bytes_acked = 0, bytes_retrans = 0;
    // The host's MPTCP zero-window probes while the stream ran (MPTcpExt WinProbe, Linux 6.10+): each
    // re-sends one data-acked byte its subflow counts again. Host-wide, so at most this connection's plus
    // other MPTCP connections' on the host; probes_counted false: the kernel does not count them.
    bool probes_counted = false;
    uint64_t window_probes = 0;
    std::vector<MptcpSubflowReport> subflows;
    uint64_t subflow_acked() const;
    uint64_t subflow_received() const;
};

struct MptcpSideReport {
    std::vector<MptcpConnectionReport> connections;  // stream order
    std::string note;                                // what was not read, and why
};

MptcpConnectionReport connection_report(const MptcpRead& read);

// "" when the subflows' bytes add up to the connection's within what the kernel counts apart: each
// subflow's SYN and FIN take a sequence number tcpi_bytes_acked counts (2 per subflow), data the
// connection sent again (MPTCP_INFO's bytes_retrans: reinjected on another subflow, or sent twice at the
// MPTCP level) is counted on every subflow that carried it, and so is each zero-window probe's byte. So
// Σ acked lies in [acked - 2n, sent + retrans + probes + 4n] (sent, not acked: read mid-flight, subflows
// have TCP-acked bytes the connection has not data-acked yet; 4n: SYN, FIN and, where the kernel does not
// count probes, a few of them) and Σ received >= received - 2n (the upper bound is the sender's: check_sides).
std::string subflow_sum_problem(const MptcpConnectionReport& c);

nlohmann::json to_json(const MptcpSideReport& r);
MptcpSideReport mptcp_side_from_json(const nlohmann::json& j);  // throws ProtocolError

// The block's table, which the kind's description lists (mptcp_report.cpp).
const KindBlockType& mptcp_block_type();

}  // namespace zc
