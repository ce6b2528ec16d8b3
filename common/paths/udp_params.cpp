#include "paths/udp_params.hpp"

#include "options/kind_options.hpp"
#include "options/option_rows.hpp"
#include "protocol/field_table.hpp"
#include "protocol/kind_params_wire.hpp"

namespace zc {

namespace {

bool cuts_datagrams(const TransportInfo& row) { return row.gso; }

// Absent (an older client): the path MTU's payload. 65507: the most one IPv4 datagram carries.
const auto kUdpFields = std::make_tuple(number("gso_size", &UdpParams::gso_size, 0, 65507, 0));

OptionRows udp_rows(const KindOptionTargets& to) {
    UdpParams& p = to.params.set(kUdpParams);
    return {
        // Its member's 0 means "not given": the sender then reads the path MTU (IP_MTU) on its connected socket,
        // so the default is shown as what it is, not as 0 (which the range refuses).
        value_in("--gso-size", p.gso_size, range_of(kUdpFields, &UdpParams::gso_size).from(16),
                 "udp-gso, udp-msgzc: bytes per datagram the kernel (or the NIC) cuts each -m call into "
                 "(UDP_SEGMENT; -m at most 64 of them). Default: the path MTU's payload, read on the connected "
                 "socket (IP_MTU less 28 bytes of IP and UDP headers, 48 over IPv6: 1472 on Ethernet), which is "
                 "also the most it may be")
            .shows("path MTU payload"),
    };
}

void encode(const KindParams& params, nlohmann::json& j) { encode_fields(j, params.get(kUdpParams), kUdpFields); }
void decode(const nlohmann::json& j, KindParams& params) { decode_fields(j, params.set(kUdpParams), kUdpFields); }

const KindOptionGroup kUdpOptionGroup{
    .title = "UDP GSO OPTIONS (-T udp-gso, udp-msgzc)", .rows = udp_rows, .takes = cuts_datagrams};
const KindParamsWire kUdpWire{.key = kUdpParams.name, .takes = cuts_datagrams, .encode = encode, .decode = decode};
[[maybe_unused]] const bool kRegistered = register_kind_options(kUdpOptionGroup) && register_kind_params_wire(kUdpWire);

}  // namespace

uint32_t gso_size_of(const TestParams& p) { return p.kind_params.get(kUdpParams).gso_size; }

}  // namespace zc
