#include "udp/udp_params.hpp"

#include "protocol/field_table.hpp"
#include "protocol/kind_params_wire.hpp"

namespace zc {

namespace {

// Absent (an older client): the path MTU's payload. 65507: the most one IPv4 datagram carries.
const auto kUdpFields = std::make_tuple(number("gso_size", &UdpParams::gso_size, 0, 65507, 0));

void encode(const KindParams& params, nlohmann::json& j) { encode_fields(j, params.get(kUdpParams), kUdpFields); }
void decode(const nlohmann::json& j, KindParams& params) { decode_fields(j, params.set(kUdpParams), kUdpFields); }

const KindParamsWire kUdpWire{.key = kUdpParams.name, .takes = takes_udp_params, .encode = encode, .decode = decode};
const KindParamsWire* const kUdpWires[] = {&kUdpWire};

}  // namespace

std::span<const KindParamsWire* const> udp_params_wires() { return kUdpWires; }

bool takes_udp_params(const TransportInfo& row) { return gso_row(row); }
uint32_t gso_size_of(const TestParams& p) { return p.kind_params.get(kUdpParams).gso_size; }
uint64_t datagram_size_of(const TestParams& p) { return gso_size_of(p) ? gso_size_of(p) : p.message_size; }
WireRange<uint32_t> gso_size_range() { return range_of(kUdpFields, &UdpParams::gso_size); }

}  // namespace zc
