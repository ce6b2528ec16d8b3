#include "tcp/tcp_params.hpp"

#include <algorithm>

#include "tcp/tcp_stats.hpp"
#include "protocol/field_table.hpp"
#include "protocol/kind_params_wire.hpp"

namespace zc {

namespace {

// The fields as the shared spec carried them, names, ranges and an older client's silence alike.
const auto kTcpFields = std::make_tuple(
    number("uring_fixed", &TcpParams::uring_fixed, false, true),
    number("rcv_lowat", &TcpParams::rcv_lowat, 1, kMaxSocketBuffer, 1),  // absent: the kernel's default
    number("flows", &TcpParams::flows, 1, kMaxFlows, 1),                 // absent: one connection per stream
    // Absent (an older client): the kernel's defaults.
    text("congestion", &TcpParams::congestion, kMaxCongestionName - 1, "TCP_CA_NAME_MAX (16 bytes)"),
    number("max_pacing_Bps", &TcpParams::max_pacing_Bps, 0, 1ull << 50, 0), number("tos", &TcpParams::tos, -1, 255, -1),
    named("crr_close", &TcpParams::crr_close, crr_close_name, crr_close_from_name, true));

const auto kTcpSideFields =
    std::make_tuple(text("bind_dev", &TcpSideParams::bind_dev, kMaxInterfaceName, "an interface name (IFNAMSIZ)"));

void encode(const KindParams& params, nlohmann::json& j) {
    TcpParams p = params.get(kTcpParams);
    if (!p.rcv_lowat) p.rcv_lowat = kDefaultRcvLowat;  // no kind chose one
    encode_fields(j, p, kTcpFields);
}

void decode(const nlohmann::json& j, KindParams& params) {
    TcpParams& p = params.set(kTcpParams);
    decode_fields(j, p, kTcpFields);
    // 'streams' is the shared fields', range-checked before the kinds' are read (run_spec.cpp).
    const auto streams = j.find("streams");
    const uint64_t n = streams != j.end() && streams->is_number_integer()
                           ? static_cast<uint64_t>(std::max<int64_t>(1, streams->get<int64_t>()))
                           : 1;
    if (n * static_cast<uint64_t>(p.flows) > kMaxDataConnections)
        throw ProtocolError("fields 'streams' x 'flows' = " + std::to_string(n * static_cast<uint64_t>(p.flows)) +
                            " exceed " + std::to_string(kMaxDataConnections) + " connections");
}

void encode_side(const KindParams& params, nlohmann::json& j) {
    encode_fields(j, params.get(kTcpSideParams), kTcpSideFields);
}
void decode_side(const nlohmann::json& j, KindParams& params) {
    decode_fields(j, params.set(kTcpSideParams), kTcpSideFields);
}

// Sent with every row's test, as they were when the shared spec held them: an older server requires
// 'uring_fixed' in every setup message, and the tcp kind's rules (tcp/tcp_rules.cpp) refuse
// TCP's options on a row without TCP sockets from the half, so the half must carry them whatever its row.
bool every_row(const TransportInfo&) { return true; }

const KindParamsWire kTcpWire{.key = kTcpParams.name, .takes = every_row, .encode = encode, .decode = decode};
const KindParamsWire kTcpSideWire{
    .key = kTcpSideParams.name, .per_side = true, .takes = every_row, .encode = encode_side, .decode = decode_side};
const KindParamsWire* const kTcpWires[] = {&kTcpWire, &kTcpSideWire};

}  // namespace

std::span<const KindParamsWire* const> tcp_params_wires() { return kTcpWires; }

std::string flows_need(int flows, int streams) {
    return "--flows " + std::to_string(flows) + " x -P " + std::to_string(streams) + " (" +
           std::to_string(static_cast<uint64_t>(flows) * static_cast<uint64_t>(streams)) + " connections)";
}

WireRange<uint64_t> wire_range(uint64_t TcpParams::*m) { return range_of(kTcpFields, m); }
WireRange<int> wire_range(int TcpParams::*m) { return range_of(kTcpFields, m); }

}  // namespace zc
