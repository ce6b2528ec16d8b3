#include "smc/smc_codes.hpp"

#include <fmt/format.h>

#include <array>

namespace zc {

namespace {

// The kernel's SMC_CLC_DECL_* values (net/smc/smc_clc.h; 0x0303000[9ab] are 6.5+), in value order.
constexpr std::array kCodes = {
    SmcCode{0x01010000, "out of memory",
            "the kernel could not allocate SMC's buffers or link resources; free memory or lower net.smc.rmem / "
            "net.smc.wmem"},
    SmcCode{0x02010000, "timeout confirming the link",
            "the RDMA link's CONFIRM LINK exchange timed out: the RDMA path between the hosts does not carry "
            "traffic (check the RoCE/rxe device, its GIDs and that both ends reach each other over RDMA)"},
    SmcCode{0x02020000, "timeout adding a link",
            "adding a second link to the link group timed out: the second RDMA path does not carry traffic"},
    SmcCode{0x03000000, "configuration error", "SMC's handshake found a configuration it cannot use"},
    SmcCode{0x03010000, "peer did not offer SMC",
            "the peer's TCP handshake carried no SMC option: the peer is not an AF_SMC socket (a plain TCP "
            "server, or smc_run/AF_SMC not used there), or a middlebox strips TCP options"},
    SmcCode{0x03020000, "IPsec in use", "the connection uses IPsec, which SMC does not carry; SMC needs plain IP"},
    SmcCode{0x03030000, "no SMC device",
            "no RDMA (RoCE) or ISM device serves this route: load one (modprobe rdma_rxe and `rdma link add` for "
            "Soft-RoCE, or mlx5_ib), give it the route's netdev or PNET ID (smc_pnet), and note that traffic to "
            "a host's own address goes through lo, which no device serves"},
    SmcCode{0x03030001, "no SMC-D device",
            "the peer proposed SMC-D only and this host has no ISM device (SMC-D needs IBM Z ISM or, 6.10+, "
            "the loopback-ism device of CONFIG_SMC_LO)"},
    SmcCode{0x03030002, "no SMC-R device",
            "no RoCE device serves this route: add one (rdma_rxe, mlx5) on the route's netdev, or set its PNET ID "
            "(smc_pnet) to the netdev's"},
    SmcCode{0x03030003, "no ISMv2 support", "the ISM device has no SMC-Dv2 support"},
    SmcCode{0x03030004, "peer sent no v2 extension",
            "the peer proposed SMCv1 only, and v1 cannot be used here (SMC-Rv1 needs a RoCEv1 GID, which rxe "
            "does not offer): update the peer's kernel"},
    SmcCode{0x03030005, "peer sent no SMC-Dv2 extension", "the peer's proposal lacked the SMC-Dv2 extension"},
    SmcCode{0x03030006, "peer sent no SEID", "the peer sent no system EID, which SMC-Dv2 needs"},
    SmcCode{0x03030007, "no SMC-Dv2 device", "no ISM device that can do SMC-Dv2 serves this route"},
    SmcCode{0x03030008, "peer sent no UEID",
            "SMC-Rv2 needs a user EID both hosts share and the peer has none (or none that matches): add the same "
            "one on both (smc-tools' `smcr ueid add`, or netlink SMC_NETLINK_ADD_UEID)"},
    SmcCode{0x03030009, "release version mismatch", "the hosts could not agree on an SMCv2 release"},
    SmcCode{0x0303000a, "max connections mismatch", "the hosts could not agree on connections per link group"},
    SmcCode{0x0303000b, "max links mismatch", "the hosts could not agree on links per link group"},
    SmcCode{0x03040000, "modes do not match", "one host offered only SMC-R and the other only SMC-D"},
    SmcCode{0x03050000, "peer has eyecatcher in RMBE", "the peer's buffer layout is one this kernel cannot use"},
    SmcCode{0x03060000, "socket option not supported",
            "the socket set an option SMC does not carry (TCP Fast Open, ...): leave it unset"},
    SmcCode{0x03070000, "IP subnet mismatch",
            "SMC-Rv1 and SMC-Dv1 need both hosts in one IP subnet; these are not (SMC-Rv2 can route)"},
    SmcCode{0x03080000, "no VLAN id", "the kernel could not read the IP device's VLAN id"},
    SmcCode{0x03090000, "ISM VLAN error", "the ISM device refused the connection's VLAN id"},
    SmcCode{0x030a0000, "no active link", "the link group has no active SMC-R link"},
    SmcCode{0x030b0000, "server link not found", "the client did not find the SMC-R link the server named"},
    SmcCode{0x030c0000, "version mismatch", "the hosts share no SMC version (v1, v2)"},
    SmcCode{0x030d0000, "DMB limit exceeded", "the SMC-D device has no buffers left"},
    SmcCode{0x030e0000, "no route to the peer",
            "SMC-Rv2 found no route from the RoCE device to the peer: give the device an IPv4 RoCEv2 GID in the "
            "socket's subnet"},
    SmcCode{0x030f0000, "indirect route mismatch",
            "SMC-Rv2: the peer is not reachable the way (direct or "
            "routed) the proposal said"},
    SmcCode{0x04000000, "synchronisation error", "the hosts' SMC state went out of step; the link group is reset"},
    SmcCode{0x05000000, "peer declined",
            "the peer declined SMC during the handshake: its own reason is the peer diagnosis beside this code"},
    SmcCode{0x09990000, "internal error", "an internal SMC error in the kernel (dmesg may say more)"},
    SmcCode{0x09990001, "rtoken handling failed", "an internal SMC error: the peer's RDMA token was refused"},
    SmcCode{0x09990002, "link not ready", "an internal SMC error: the RDMA link did not become ready"},
    SmcCode{0x09990003, "buffer registration failed", "an internal SMC error: registering the RDMA buffers failed"},
};

}  // namespace

const char* smc_mode_name(uint8_t mode) {
    switch (static_cast<SmcMode>(mode)) {
        case SmcMode::smcr:
            return "SMC-R";
        case SmcMode::fallback:
            return "TCP fallback";
        case SmcMode::smcd:
            return "SMC-D";
    }
    return "unknown mode";
}

const SmcCode* smc_code(uint32_t value) {
    for (const auto& c : kCodes)
        if (c.value == value) return &c;
    return nullptr;
}

std::string_view smc_code_class(uint32_t value) {
    switch (value >> 24) {
        case 0x01:
            return "resource";
        case 0x02:
            return "timeout";
        case 0x03:
            return "configuration error";
        case 0x04:
            return "synchronisation error";
        case 0x05:
            return "the peer declined";
        case 0x09:
            return "internal error";
        default:
            return "";
    }
}

std::string smc_code_label(uint32_t value) {
    if (value == 0) return "none";
    if (const SmcCode* c = smc_code(value)) return fmt::format("{:#010x} {}", value, c->name);
    // The kernel refines a code in its low 16 bits (0x0303xxxx: kinds of "no SMC device"): an unknown
    // refinement is named by the code it refines.
    if (const SmcCode* family = smc_code(value & 0xffff0000u); family && (value & 0xffffu))
        return fmt::format("{:#010x} unknown (a kind of {:#010x} {})", value, family->value, family->name);
    std::string_view cls = smc_code_class(value);
    return cls.empty() ? fmt::format("{:#010x} unknown", value)
                       : fmt::format("{:#010x} unknown ({} class)", value, cls);
}

std::string smc_code_text(uint32_t value) {
    const SmcCode* c = smc_code(value);
    return c ? smc_code_label(value) + ": " + std::string(c->meaning) : smc_code_label(value);
}

}  // namespace zc
