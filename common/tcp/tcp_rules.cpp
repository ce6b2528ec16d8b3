#include "tcp/tcp_rules.hpp"

#include <algorithm>
#include <string_view>

#include "core/kind_description.hpp"
#include "tcp/tcp_params.hpp"

namespace zc {

namespace {

// The tcp kind's rows that serve --flows, by name (common/tcp/tcp_kind.cpp's rows).
constexpr std::string_view kFlowsRows[] = {"tcp"};

// -C, --fq-rate, --tos and --bind-dev are settings of a kernel TCP socket.
std::string socket_options_problem(const HalfSpec& h, const TransportInfo& t) {
    const TcpParams& p = tcp_params(h);
    const bool asked =
        !p.congestion.empty() || p.max_pacing_Bps || p.tos >= 0 || !tcp_side_params(h.side).bind_dev.empty();
    if (!asked || t.tcp_sockets) return "";
    return "-C, --fq-rate, --tos and --bind-dev set TCP sockets (-T " +
           transport_names_where([](const TransportInfo& r) { return r.tcp_sockets; }) + "); " + t.name +
           " has none: leave them out";
}

}  // namespace

bool takes_flows(const TransportInfo& row) {
    return row_of_kind(row, "tcp") &&
           std::find(std::begin(kFlowsRows), std::end(kFlowsRows), row.name) != std::end(kFlowsRows);
}

std::string flows_problem(const HalfSpec& h) {
    if (tcp_params(h).flows <= 1) return "";
    const TransportInfo& t = transport_info(h.transport);
    if (!takes_flows(t)) {
        return "--flows serves many connections per thread with send()/recv() copies over one epoll: -T " +
               transport_names_where(takes_flows) + ", not " + t.name + " (use -P N for more streams)";
    }
    // The flows loops run stream, maerts (the same loops, the other way) and rr. A test of its own
    // (crr, connect/request/response/close) joins with a flow state machine on TcpFlowSet.
    if (h.test != Workload::stream && h.test != Workload::maerts && h.test != Workload::rr) {
        return std::string("--flows runs stream, maerts and rr; -t ") + workload_name(h.test) +
               " over flows is not built yet (use -P N for more connections)";
    }
    if (h.rx != RxMode::copy)
        return std::string("--flows receives with recv() (--rx copy), not --rx ") + rx_mode_name(h.rx);
    if (h.side.buffer.kind != MemoryKind::host)
        return "--flows uses host memory, one buffer per thread; --buffer " + buffer_spec_name(h.side.buffer) +
               " runs with one connection per stream (-P N)";
    if (h.bitrate != 0) return "-b paces one connection per stream; --flows sends as fast as each flow can";
    return "";
}

std::string tcp_options_problem(const HalfSpec& half, Role) {
    if (std::string why = flows_problem(half); !why.empty()) return why;
    return socket_options_problem(half, transport_info(half.transport));
}

}  // namespace zc
