#pragma once
// SMC's own counters, host-wide per network namespace: the generic netlink family SMC_GEN_NETLINK's
// SMC_NETLINK_GET_STATS (handshakes that reached SMC-R / SMC-D per side, the bytes moved through the RMBs)
// and SMC_NETLINK_GET_FBACK_STATS (fallbacks per side and per reason); Linux 5.14+. A test reads them before
// and after and reports the delta. A kernel without them is "absent" with the reason, never zeros.
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zc {

// One technology's totals (SMC_NLA_STATS_SMCR_TECH / _SMCD_TECH).
struct SmcTechStats {
    uint64_t client_v1_ok = 0, client_v2_ok = 0, server_v1_ok = 0, server_v2_ok = 0;  // handshakes that engaged
    uint64_t rx_bytes = 0, tx_bytes = 0;  // payload through the buffers (RMB / DMB)
    uint64_t rx_calls = 0, tx_calls = 0;
    uint64_t handshakes() const { return client_v1_ok + client_v2_ok + server_v1_ok + server_v2_ok; }
};

// One reason's fallbacks on one side (the kernel keeps a 16-bit count per reason, at most 30 reasons a side).
struct SmcFallbackCount {
    uint32_t code = 0;  // SMC_CLC_DECL_* (smc/smc_codes.hpp)
    bool server = false;
    uint64_t count = 0;
};

struct SmcStats {
    bool present = false;  // false: not read; `absent` says why
    std::string absent;
    SmcTechStats smcr, smcd;
    uint64_t client_handshake_errors = 0, server_handshake_errors = 0;
    // The fallback dump's totals. The kernel's dump (net/smc/smc_stats.c) lists reasons position by position
    // and stops at the first position the server's table has none, so while no server-side fallback was
    // ever recorded it lists nothing, not even the totals: fallback_totals false then.
    bool fallback_totals = false;
    uint64_t client_fallbacks = 0, server_fallbacks = 0;
    std::vector<SmcFallbackCount> reasons;
    std::string note;  // what the figures cannot say ("" nothing)
};

// One SMC_NETLINK_GET_STATS message's generic-netlink payload (genlmsghdr and its attributes) into `into`;
// one SMC_NETLINK_GET_FBACK_STATS message's likewise (the dump sends one per reason). Throw
// NetlinkFormatError (smc/smc_netlink.hpp) on a malformed one.
void parse_smc_stats(std::span<const uint8_t> genl_payload, SmcStats& into);
void parse_smc_fallback_stats(std::span<const uint8_t> genl_payload, SmcStats& into);

// This namespace's counters now; never throws.
SmcStats read_smc_stats(std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));

// after - before (the test's own share, plus other SMC sockets' on the host over the same time). Absent
// when either is; a reason's 16-bit count is taken modulo 2^16.
SmcStats delta(const SmcStats& before, const SmcStats& after);

}  // namespace zc
