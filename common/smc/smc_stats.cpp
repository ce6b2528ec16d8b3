#include "smc/smc_stats.hpp"

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>

#include <cerrno>
#include <cstring>

#include "smc/smc_netlink.hpp"

namespace zc {

namespace {

std::span<const uint8_t> genl_attrs(std::span<const uint8_t> payload) {
    if (payload.size() < GENL_HDRLEN)
        throw NetlinkFormatError("a generic netlink message without its header (" + std::to_string(payload.size()) +
                                 " bytes)");
    return payload.subspan(GENL_HDRLEN);
}

SmcTechStats tech_stats(std::span<const uint8_t> nest) {
    SmcTechStats t;
    for (const auto& a : netlink_attrs(nest)) {
        switch (a.type) {
            case SMC_NLA_STATS_T_CLNT_V1_SUCC:
                t.client_v1_ok = netlink_uint(a);
                break;
            case SMC_NLA_STATS_T_CLNT_V2_SUCC:
                t.client_v2_ok = netlink_uint(a);
                break;
            case SMC_NLA_STATS_T_SRV_V1_SUCC:
                t.server_v1_ok = netlink_uint(a);
                break;
            case SMC_NLA_STATS_T_SRV_V2_SUCC:
                t.server_v2_ok = netlink_uint(a);
                break;
            case SMC_NLA_STATS_T_RX_BYTES:
                t.rx_bytes = netlink_uint(a);
                break;
            case SMC_NLA_STATS_T_TX_BYTES:
                t.tx_bytes = netlink_uint(a);
                break;
            case SMC_NLA_STATS_T_RX_CNT:
                t.rx_calls = netlink_uint(a);
                break;
            case SMC_NLA_STATS_T_TX_CNT:
                t.tx_calls = netlink_uint(a);
                break;
            default:
                break;  // the buffer-size histograms, padding, later counters
        }
    }
    return t;
}

std::vector<uint8_t> genl_request(uint16_t family, uint8_t cmd, uint16_t flags) {
    genlmsghdr g{};
    g.cmd = cmd;
    g.version = SMC_GENL_FAMILY_VERSION;
    return netlink_request(family, flags, {reinterpret_cast<const uint8_t*>(&g), sizeof(g)});
}

// SMC_GEN_NETLINK's id, or 0 with `why` set.
uint16_t smc_family_id(std::chrono::milliseconds timeout, std::string& why) {
    genlmsghdr g{};
    g.cmd = CTRL_CMD_GETFAMILY;
    g.version = 1;
    auto req = netlink_request(GENL_ID_CTRL, NLM_F_REQUEST, {reinterpret_cast<const uint8_t*>(&g), sizeof(g)});
    static constexpr char kName[] = SMC_GENL_FAMILY_NAME;
    netlink_add_attr(req, CTRL_ATTR_FAMILY_NAME, {reinterpret_cast<const uint8_t*>(kName), sizeof(kName)});
    NetlinkAnswer a = netlink_exchange(NETLINK_GENERIC, std::move(req), timeout);
    if (a.error == ENOENT) {
        why = "the kernel has no " SMC_GENL_FAMILY_NAME
              " netlink family: smc.ko is not loaded (modprobe smc) or "
              "the kernel predates it (5.11)";
        return 0;
    }
    if (!a.failure.empty() || a.messages.empty()) {
        why = "resolving " SMC_GENL_FAMILY_NAME ": " + (a.failure.empty() ? "no answer" : a.failure);
        return 0;
    }
    for (const auto& at : netlink_attrs(genl_attrs(netlink_message(a.messages.front()).payload)))
        if (at.type == CTRL_ATTR_FAMILY_ID) return static_cast<uint16_t>(netlink_uint(at));
    why = "the kernel's answer for " SMC_GENL_FAMILY_NAME " has no family id";
    return 0;
}

}  // namespace

void parse_smc_stats(std::span<const uint8_t> genl_payload, SmcStats& into) {
    for (const auto& top : netlink_attrs(genl_attrs(genl_payload))) {
        if (top.type != SMC_GEN_STATS) continue;
        for (const auto& a : netlink_attrs(top.data)) {
            switch (a.type) {
                case SMC_NLA_STATS_SMCR_TECH:
                    into.smcr = tech_stats(a.data);
                    break;
                case SMC_NLA_STATS_SMCD_TECH:
                    into.smcd = tech_stats(a.data);
                    break;
                case SMC_NLA_STATS_CLNT_HS_ERR_CNT:
                    into.client_handshake_errors = netlink_uint(a);
                    break;
                case SMC_NLA_STATS_SRV_HS_ERR_CNT:
                    into.server_handshake_errors = netlink_uint(a);
                    break;
                default:
                    break;
            }
        }
        into.present = true;
    }
}

void parse_smc_fallback_stats(std::span<const uint8_t> genl_payload, SmcStats& into) {
    for (const auto& top : netlink_attrs(genl_attrs(genl_payload))) {
        if (top.type != SMC_GEN_FBACK_STATS) continue;
        SmcFallbackCount r;
        bool has_code = false;
        for (const auto& a : netlink_attrs(top.data)) {
            switch (a.type) {
                case SMC_NLA_FBACK_STATS_TYPE:
                    r.server = netlink_uint(a) != 0;
                    break;
                case SMC_NLA_FBACK_STATS_SRV_CNT:
                    into.server_fallbacks = netlink_uint(a);
                    into.fallback_totals = true;
                    break;
                case SMC_NLA_FBACK_STATS_CLNT_CNT:
                    into.client_fallbacks = netlink_uint(a);
                    into.fallback_totals = true;
                    break;
                case SMC_NLA_FBACK_STATS_RSN_CODE:
                    r.code = static_cast<uint32_t>(netlink_uint(a));
                    has_code = true;
                    break;
                case SMC_NLA_FBACK_STATS_RSN_CNT:
                    r.count = netlink_uint(a);
                    break;
                default:
                    break;
            }
        }
        if (has_code) into.reasons.push_back(r);
    }
}

SmcStats read_smc_stats(std::chrono::milliseconds timeout) {
    SmcStats s;
    try {
        uint16_t family = smc_family_id(timeout, s.absent);
        if (!family) return s;
        NetlinkAnswer a = netlink_exchange(
            NETLINK_GENERIC, genl_request(family, SMC_NETLINK_GET_STATS, NLM_F_REQUEST | NLM_F_DUMP), timeout);
        if (!a.failure.empty()) {
            s.absent = a.error == EOPNOTSUPP || a.error == EINVAL
                           ? "this kernel's SMC has no statistics (SMC_NETLINK_GET_STATS, Linux 5.14+)"
                           : "reading SMC's statistics: " + a.failure;
            return s;
        }
        for (const auto& m : a.messages) parse_smc_stats(netlink_message(m).payload, s);
        if (!s.present) {
            s.absent = "the kernel answered SMC_NETLINK_GET_STATS without its statistics";
            return s;
        }
        NetlinkAnswer f = netlink_exchange(
            NETLINK_GENERIC, genl_request(family, SMC_NETLINK_GET_FBACK_STATS, NLM_F_REQUEST | NLM_F_DUMP), timeout);
        if (!f.failure.empty()) {
            s.present = false;
            s.absent = "reading SMC's fallback counts: " + f.failure;
            return s;
        }
        for (const auto& m : f.messages) parse_smc_fallback_stats(netlink_message(m).payload, s);
        if (!s.fallback_totals)
            s.note = "the kernel listed no fallback counts (it lists them once a server-side fallback is recorded)";
    } catch (const NetlinkFormatError& e) {
        s = SmcStats{};
        s.absent = std::string("the kernel's SMC statistics were malformed: ") + e.what();
    }
    return s;
}

SmcStats delta(const SmcStats& before, const SmcStats& after) {
    SmcStats d;
    if (!before.present || !after.present) {
        d.absent = !before.present ? before.absent : after.absent;
        return d;
    }
    d.present = true;
    auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : 0; };  // a counter never goes back
    auto tech = [&](const SmcTechStats& b, const SmcTechStats& a) {
        return SmcTechStats{sub(a.client_v1_ok, b.client_v1_ok), sub(a.client_v2_ok, b.client_v2_ok),
                            sub(a.server_v1_ok, b.server_v1_ok), sub(a.server_v2_ok, b.server_v2_ok),
                            sub(a.rx_bytes, b.rx_bytes),         sub(a.tx_bytes, b.tx_bytes),
                            sub(a.rx_calls, b.rx_calls),         sub(a.tx_calls, b.tx_calls)};
    };
    d.smcr = tech(before.smcr, after.smcr);
    d.smcd = tech(before.smcd, after.smcd);
    d.client_handshake_errors = sub(after.client_handshake_errors, before.client_handshake_errors);
    d.server_handshake_errors = sub(after.server_handshake_errors, before.server_handshake_errors);
    d.fallback_totals = after.fallback_totals;
    d.client_fallbacks = sub(after.client_fallbacks, before.client_fallbacks);
    d.server_fallbacks = sub(after.server_fallbacks, before.server_fallbacks);
    for (const auto& r : after.reasons) {
        uint64_t was = 0;
        for (const auto& b : before.reasons)
            if (b.code == r.code && b.server == r.server) was = b.count;
        uint64_t n = (r.count - was) & 0xffff;
        if (n) d.reasons.push_back({r.code, r.server, n});
    }
    if (!after.fallback_totals)
        d.note = after.note;
    else if (!before.fallback_totals)
        d.note =
            "the kernel listed no fallback counts before the test (it lists them once a server-side fallback is "
            "recorded): the fallback figures count from the namespace's start, at most";
    return d;
}

}  // namespace zc
