#include "udp/udp_options.hpp"

#include "options/kind_options.hpp"
#include "options/option_rows.hpp"
#include "udp/udp_params.hpp"

namespace zc {

namespace {

OptionRows udp_rows(const KindOptionTargets& to) {
    UdpParams& p = to.params.set(kUdpParams);
    return {
        // Its member's 0 means "not given": the sender then reads the path MTU (IP_MTU) on its connected socket,
        // so the default is shown as what it is, not as 0 (which the range refuses).
        value_in("--gso-size", p.gso_size, gso_size_range().from(16),
                 "udp-gso, udp-msgzc: bytes per datagram the kernel (or the NIC) cuts each -m call into "
                 "(UDP_SEGMENT; -m at most 64 of them). Default: the path MTU's payload, read on the connected "
                 "socket (IP_MTU less 28 bytes of IP and UDP headers, 48 over IPv6: 1472 on Ethernet), which is "
                 "also the most it may be")
            .shows("path MTU payload"),
    };
}

const KindOptionGroup kUdpOptionGroup{.title = "UDP GSO OPTIONS", .rows = udp_rows, .takes = takes_udp_params};

}  // namespace

const KindOptionGroup& udp_option_group() { return kUdpOptionGroup; }

}  // namespace zc
