#pragma once
// UDP's own parameter (core/kind_params.hpp): the GSO rows' datagram size (--gso-size), and its wire half,
// registered by udp_params.cpp so whatever decodes a setup message with it (zcserver, the fuzz target) reads
// it. Its option row is udp/udp_options.cpp's.
#include <cstdint>
#include <span>

#include "protocol/run_spec.hpp"
#include "protocol/wire_range.hpp"

namespace zc {

struct UdpParams {
    uint32_t gso_size = 0;  // udp-gso, udp-msgzc: datagram size; 0 = the path MTU's payload
};
inline constexpr KindParamsKey<UdpParams> kUdpParams{"udp"};

bool takes_udp_params(const TransportInfo& row);  // the rows that cut their calls into datagrams (gso)
bool gso_row(
    const TransportInfo& row);  // udp-gso, udp-msgzc: one call carries many datagrams, cut at --gso-size (UDP_SEGMENT)
uint32_t gso_size_of(const TestParams& p);  // --gso-size as given (0: not given)
// The largest datagram a receiver sees: --gso-size's, else -m's (one datagram per call, or GSO without a size,
// which cuts segments of at most -m).
uint64_t datagram_size_of(const TestParams& p);
WireRange<uint32_t> gso_size_range();  // what the wire accepts
struct KindParamsWire;
std::span<const KindParamsWire* const> udp_params_wires();  // its field table, for its description

}  // namespace zc
