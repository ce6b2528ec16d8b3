#include "paths/flow_rules.hpp"

#include "tcp/tcp_params.hpp"

namespace zc {

std::string flows_problem(const HalfSpec& h) {
    if (tcp_params(h).flows <= 1) return "";
    const TransportInfo& t = transport_info(h.transport);
    if (!t.flows) {
        return "--flows serves many connections per thread with send()/recv() copies over one epoll: -T " +
               transport_names_where([](const TransportInfo& r) { return r.flows; }) + ", not " + t.name +
               " (use -P N for more streams)";
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

}  // namespace zc
