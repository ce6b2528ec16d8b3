#include "tcp/tcp_options.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/pacer.hpp"
#include "tcp/tcp_stats.hpp"
#include "options/kind_options.hpp"
#include "tcp/tcp_params.hpp"
#include "tcp/tcp_rules.hpp"
#include "tcp/tcp_tuning.hpp"

namespace zc {

namespace {

// -C: checked against this kernel's list, so a missing algorithm is an error before anything connects
// (the server's kernel checks its own at set-up).
std::string checked_congestion(const std::string& name) {
    if (name.empty() || name.size() >= kMaxCongestionName)
        throw std::invalid_argument("-C '" + name + "': an algorithm's name is 1.." +
                                    std::to_string(kMaxCongestionName - 1) + " bytes (cubic, bbr, reno)");
    auto avail = available_congestion_controls();
    if (!avail.empty() && std::find(avail.begin(), avail.end(), name) == avail.end())
        throw std::invalid_argument("-C: " + congestion_problem(name, ENOENT, avail));
    return name;
}

int parse_tos(const std::string& text) {
    size_t used = 0;
    long v = -1;
    try {
        v = std::stol(text, &used, 0);
    } catch (const std::exception&) {}
    if (text.empty() || used != text.size() || v < 0 || v > 255)
        throw std::invalid_argument("--tos '" + text + "' is not 0..255 (decimal, or hex as 0x10)");
    return static_cast<int>(v);
}

OptionRows tcp_rows(const KindOptionTargets& to) {
    TcpParams& p = to.params.set(kTcpParams);
    return {
        flag("--uring-fixed", p.uring_fixed, "tcp-uringzc: register the send buffers with io_uring"),
        size_in("--rcvlowat", p.rcv_lowat, wire_range(&TcpParams::rcv_lowat).lo, wire_range(&TcpParams::rcv_lowat).hi,
                "stream tests over TCP: the receiver sleeps until this many bytes are queued (SO_RCVLOWAT), so the "
                "sending CPU pays fewer wake-ups; 1 = the kernel's default, a wake-up per segment (default 256K, "
                "or the transport's own by -m where its kind measured another; capped by the kernel at half the "
                "receive buffer; the report shows what ran)",
                "--rcvlowat must be 1..1G bytes (1 = the kernel's default)"),
        text("--crr-close",
             "crr, cc: how the client closes each connection: rst (SO_LINGER 0: no TIME_WAIT, so a long run never "
             "runs out of ports; default) or fin (an orderly close, netperf's: each port then waits 60 s in "
             "TIME_WAIT, and across a link a long run ends with 'out of ephemeral ports')",
             [&p](const std::string& t) { p.crr_close = crr_close_from_name(t); })
            .choose({"rst", "fin"})
            .shows("rst"),
    };
}

// Both sides' data sockets get them (--bind-dev: the client's); each side reports what its kernel read back
// (the human report's "tcp:" line, JSON's tcp_settings, CSV's tcp_*).
OptionRows tcp_socket_rows(const KindOptionTargets& to) {
    TcpParams& p = to.params.set(kTcpParams);
    KindParams& local = to.local;
    return {
        text("-C,--congestion",
             "TCP congestion control of the data connections, both sides (TCP_CONGESTION: cubic, bbr, reno, ...; "
             "/proc/sys/net/ipv4/tcp_available_congestion_control lists the loaded ones); the report gives what ran",
             [&p](const std::string& t) { p.congestion = checked_congestion(t); })
            .value_kind("ALGO"),
        text("--fq-rate",
             "cap each data connection at this many bits/s with SO_MAX_PACING_RATE (100M, 2.5G; TCP paces itself, or "
             "the fq qdisc does), both sides; the report gives the cap each side's kernel holds and TCP's pacing rate",
             [&p](const std::string& t) {
                 if (t.find_first_not_of("0.") == std::string::npos)
                     throw std::invalid_argument("--fq-rate " + t +
                                                 " would stop the connection: give a rate (100M, 2.5G), or leave the "
                                                 "option out for no cap");
                 p.max_pacing_Bps = std::max<uint64_t>(1, parse_bitrate(t, "--fq-rate") / 8);
             })
            .value_kind("RATE"),
        text("--tos",
             "IP TOS byte / IPv6 traffic class of the data connections, both sides: 0..255, decimal or 0x.. (0x10 low "
             "delay, 0xb8 DSCP EF)",
             [&p](const std::string& t) { p.tos = parse_tos(t); })
            .value_kind("TOS"),
        text("--bind-dev",
             "the client's data connections leave through this interface (SO_BINDTODEVICE; root before Linux 5.7)",
             [&local](const std::string& t) {
                 if (t.empty() || t.size() > kMaxInterfaceName)
                     throw std::invalid_argument("--bind-dev '" + t +
                                                 "' is not an interface name (ip -br link lists "
                                                 "them)");
                 local.set(kTcpSideParams).bind_dev = t;
             })
            .value_kind("IFACE"),
    };
}

OptionRows tcp_flows_rows(const KindOptionTargets& to) {
    TcpParams& p = to.params.set(kTcpParams);
    return {
        // neper's num_flows (tcp/tcp_flows.hpp); its rules are tcp/tcp_rules.cpp.
        value_in("--flows", p.flows, wire_range(&TcpParams::flows),
                 "TCP connections per stream, all served by the stream's thread through one epoll, as servers run "
                 "(neper's num_flows; e.g. -P 2 --flows 500); reports per-flow min/median/max and Jain's fairness "
                 "index. -T tcp, stream/maerts/rr; raises the open-file limit as needed"),
    };
}

// The rows whose data connections are kernel TCP byte streams, whatever runs over them; those whose data
// connections are plain TCP sockets (-C and the socket options); those that serve --flows (takes_flows). Where a run
// mixes them, the rules refuse the options on the tests that cannot take them (tcp/tcp_rules.cpp).
bool tcp_kind(const TransportInfo& row) { return row.tcp_segments; }
bool tcp_socket_kind(const TransportInfo& row) { return row.tcp_sockets; }

void check_tcp_options(const KindOptionRun& run) {
    const TcpParams& p = run.params.get(kTcpParams);
    if (p.crr_close != CrrClose::rst && std::none_of(run.tests.begin(), run.tests.end(), is_connection_test))
        throw std::invalid_argument("--crr-close is for -t crr and -t cc (a connection per transaction)");
    if (static_cast<uint64_t>(run.streams) * static_cast<uint64_t>(p.flows) > kMaxDataConnections)
        throw std::invalid_argument(flows_need(p.flows, run.streams) + " exceed " +
                                    std::to_string(kMaxDataConnections) + " connections per side");
}

const KindOptionGroup kTcpOptionGroup{
    .title = "TCP OPTIONS", .rows = tcp_rows, .takes = tcp_kind, .check = check_tcp_options};
const KindOptionGroup kTcpSocketOptionGroup{
    .title = "TCP SOCKET OPTIONS", .rows = tcp_socket_rows, .takes = tcp_socket_kind};
const KindOptionGroup kTcpFlowsOptionGroup{.title = "TCP FLOWS", .rows = tcp_flows_rows, .takes = takes_flows};

}  // namespace

const KindOptionGroup& tcp_option_group() { return kTcpOptionGroup; }
const KindOptionGroup& tcp_socket_option_group() { return kTcpSocketOptionGroup; }
const KindOptionGroup& tcp_flows_option_group() { return kTcpFlowsOptionGroup; }

}  // namespace zc
