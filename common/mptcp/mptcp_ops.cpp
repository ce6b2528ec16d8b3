// The mptcp kind's operations table: the tcp kind's sockets and loops (opened as IPPROTO_MPTCP), a clear error where
// the host's kernel runs no MPTCP, and its own report block: each stream's connection and subflows as the kernel saw
// them, read once at the end of the side's run.
#include <sys/socket.h>

#include <any>
#include <optional>
#include <stdexcept>

#include "mptcp/mptcp_kernel.hpp"
#include "mptcp/mptcp_report.hpp"
#include "tcp/tcp_ops.hpp"
#include "kind/kind_module.hpp"

namespace zc {

namespace {

constexpr int kMptcpProtocol = 262;  // IPPROTO_MPTCP (Linux 5.6+; glibc's headers name it only since 2.32)
constexpr StreamSocket kMptcpSocket{.protocol = kMptcpProtocol};

void require_mptcp() {
    if (std::string why = mptcp_unavailable(); !why.empty()) throw std::runtime_error(why);
}

// The data listener takes any address of the control connection's family, not only its address: the
// subflows the path manager adds join on the server's other addresses (those it announces). It stays open
// until the test ends: a join's SYN needs a listener on its address and port, and the client sends it only
// after the server's ADD_ADDR, which races the accept (closed then, a third of the two-link runs here lost
// their second subflow to a reset).
std::unique_ptr<KindListener> listen(const HalfSpec& half, Role, const std::string& bind_address) {
    require_mptcp();
    return listen_stream_sockets(half, bind_address.find(':') != std::string::npos ? "::" : "0.0.0.0", kMptcpSocket,
                                 true);
}

std::vector<DataConnection> connect(const HalfSpec& half, Role, const PeerAddress& peer, uint64_t token) {
    require_mptcp();
    return connect_stream_sockets(half, peer, token, kMptcpSocket);
}

// At a stream's start: the host's MPTCP zero-window probes so far (empty where the kernel does not count
// them). A host-wide count, so a stream's probes over its run are at most what it rose by.
std::any window_probes_so_far(const HalfSpec&, const DataConnection&) {
    if (std::optional<uint64_t> n = read_mptcp_window_probes()) return *n;
    return {};
}

// Each stream's connection as the kernel saw it at the end. crr's server holds listeners (each
// transaction's connection closed within the loop): nothing to read there; its client reads the stream's
// own connection, which shows whether the peer took MPTCP.
void read_block(const HalfSpec& h, Role role, std::span<const KindStream> streams, SideResult& r) {
    write_tcp_block(h, role, streams, r);  // the settings of its sockets (no TCP_INFO: see mptcp_ops)
    MptcpSideReport report;
    const std::optional<uint64_t> probes_now = read_mptcp_window_probes();
    for (const KindStream& s : streams) {
        int fd = tcp_fd(*s.conn);
        if (fd < 0 || is_listener(fd)) continue;
        MptcpConnectionReport& c = report.connections.emplace_back(connection_report(read_mptcp(fd)));
        const uint64_t* probes_then = s.at_start ? std::any_cast<uint64_t>(s.at_start) : nullptr;
        if (probes_then && probes_now && *probes_now >= *probes_then) {
            c.probes_counted = true;
            c.window_probes = *probes_now - *probes_then;
        }
        if (std::string why = subflow_sum_problem(report.connections.back()); !why.empty())
            r.warnings.push_back("mptcp stream " + std::to_string(report.connections.size() - 1) +
                                 ": the subflows' bytes do not add up to the connection's: " + why);
    }
    if (is_connection_test(h.test)) report.note = kCrrFirstConnectionsOnly;
    r.kinds[mptcp_block_type().key] = to_json(report);
}

// Not TCP_INFO, which would be one subflow's (the kind's block has them all): the host's zero-window probes at the
// start, which the block's sums allow for.
TransportOps mptcp_ops() { return tcp_loops_ops({listen, connect, window_probes_so_far, read_block}); }

}  // namespace

const TransportOps kMptcpOps = mptcp_ops();

extern const KindDescription kind_description_mptcp;  // mptcp_kind.cpp
extern const KindModule kind_module_mptcp;
namespace {
const KindTable kMptcpTables[] = {{"mptcp", &kMptcpOps}};
}  // namespace
const KindModule kind_module_mptcp{.description = &kind_description_mptcp, .tables = kMptcpTables};

}  // namespace zc
