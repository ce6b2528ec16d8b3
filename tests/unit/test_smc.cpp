// The smc kind's own pieces, from bytes laid out as the kernel's ABI structs (include/uapi/linux/smc_diag.h,
// smc.h): an smc_diag message of a connection that fell back (reason 0x03030000) and of an SMC-R one with its
// link group, a truncated and a malformed message refused, the decline codes' names, SMC's netlink counters
// parsed and their delta, and the report block through the generic kind-block table. And, on this host,
// what socket(AF_SMC) says.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>

#include <cstring>

#include "protocol/frame.hpp"
#include "protocol/result.hpp"
#include "smc/smc_codes.hpp"
#include "smc/smc_diag.hpp"
#include "smc/smc_netlink.hpp"
#include "smc/smc_report.hpp"
#include "smc/smc_stats.hpp"

using namespace zc;

namespace {

// Bytes as the kernel writes them: fixed structs and netlink attributes, each padded to 4.
struct Bytes {
    std::vector<uint8_t> b;
    template <class T>
    Bytes& put(const T& v) {
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        b.insert(b.end(), p, p + sizeof(T));
        return *this;
    }
    Bytes& attr(uint16_t type, const std::vector<uint8_t>& data) {
        nlattr a{static_cast<uint16_t>(sizeof(nlattr) + data.size()), type};
        put(a);
        b.insert(b.end(), data.begin(), data.end());
        b.resize((b.size() + 3) & ~size_t{3}, 0);
        return *this;
    }
    template <class T>
    Bytes& attr_of(uint16_t type, const T& v) {
        return attr(type, Bytes().put(v).b);
    }
};

smc_diag_msg diag_msg(uint8_t mode, const char* src, const char* dst, uint16_t sport, uint16_t dport, uint64_t ino) {
    smc_diag_msg m{};
    m.diag_family = AF_SMC;
    m.diag_state = 1;  // established
    m.diag_mode = mode;
    inet_pton(AF_INET, src, &m.id.idiag_src[0]);
    inet_pton(AF_INET, dst, &m.id.idiag_dst[0]);
    m.id.idiag_sport = htons(sport);
    m.id.idiag_dport = htons(dport);
    m.diag_uid = 1000;
    m.diag_inode = ino;
    return m;
}

// The client's side of a loopback connection in the Soft-RoCE guest: it fell back for want of a device.
std::vector<uint8_t> fallback_message() {
    Bytes m;
    m.put(diag_msg(SMC_DIAG_MODE_FALLBACK_TCP, "127.0.0.1", "127.0.0.1", 40000, 5201, 4242));
    m.attr_of(SMC_DIAG_SHUTDOWN, uint8_t{0});
    m.attr_of(SMC_DIAG_FALLBACK, smc_diag_fallback{0x03030000, 0});
    return m.b;
}

std::vector<uint8_t> smcr_message() {
    Bytes m;
    m.put(diag_msg(SMC_DIAG_MODE_SMCR, "198.18.0.1", "198.18.0.2", 5201, 40001, 777));
    m.attr_of(SMC_DIAG_SHUTDOWN, uint8_t{0});
    m.attr_of(SMC_DIAG_FALLBACK, smc_diag_fallback{0, 0});
    smc_diag_conninfo ci{};
    ci.token = 9;
    ci.sndbuf_size = 65536;
    ci.rmbe_size = 131072;
    ci.peer_rmbe_size = 262144;
    m.attr_of(SMC_DIAG_CONNINFO, ci);
    smc_diag_lgrinfo l{};
    l.lnk[0].link_id = 1;
    std::strcpy(reinterpret_cast<char*>(l.lnk[0].ibname), "rxe0");
    l.lnk[0].ibport = 1;
    std::strcpy(reinterpret_cast<char*>(l.lnk[0].gid), "0000:0000:0000:0000:0000:ffff:c612:0001");
    std::strcpy(reinterpret_cast<char*>(l.lnk[0].peer_gid), "0000:0000:0000:0000:0000:ffff:c612:0002");
    l.role = 1;
    m.attr_of(SMC_DIAG_LGRINFO, l);
    return m.b;
}

const KindBlockType* block_type() {
    for (const auto* t : kind_block_types())
        if (std::string(t->key) == "smc") return t;
    return nullptr;
}

SmcSideReport fallback_side() {
    SmcSideReport r;
    r.connections = {parse_smc_diag_message(fallback_message()), parse_smc_diag_message(fallback_message())};
    r.stats.present = true;
    r.stats.fallback_totals = true;
    r.stats.client_fallbacks = 2;
    r.stats.reasons = {{0x03030000, false, 2}};
    return r;
}

}  // namespace

TEST(SmcDiag, AFallbackConnectionDecodesItsModeReasonAndAddresses) {
    SmcConnection c = parse_smc_diag_message(fallback_message());
    EXPECT_EQ(c.mode, static_cast<uint8_t>(SmcMode::fallback));
    EXPECT_TRUE(c.fell_back());
    EXPECT_STREQ(smc_mode_name(c.mode), "TCP fallback");
    EXPECT_TRUE(c.has_fallback);
    EXPECT_EQ(c.reason, 0x03030000u);
    EXPECT_EQ(c.peer_diagnosis, 0u);
    EXPECT_EQ(c.local, "127.0.0.1");
    EXPECT_EQ(c.local_port, 40000);
    EXPECT_EQ(c.remote_port, 5201);
    EXPECT_EQ(c.inode, 4242u);
    EXPECT_EQ(c.uid, 1000u);
    EXPECT_FALSE(c.has_conninfo);
    EXPECT_FALSE(c.has_link);
}

TEST(SmcDiag, AnSmcRConnectionDecodesItsLinkAndBuffers) {
    SmcConnection c = parse_smc_diag_message(smcr_message());
    EXPECT_STREQ(smc_mode_name(c.mode), "SMC-R");
    EXPECT_FALSE(c.fell_back());
    ASSERT_TRUE(c.has_conninfo);
    EXPECT_EQ(c.sndbuf_size, 65536u);
    EXPECT_EQ(c.rmb_size, 131072u);
    EXPECT_EQ(c.peer_rmb_size, 262144u);
    ASSERT_TRUE(c.has_link);
    EXPECT_EQ(c.ib_device, "rxe0");
    EXPECT_EQ(c.ib_port, 1u);
    EXPECT_EQ(c.gid, "0000:0000:0000:0000:0000:ffff:c612:0001");
    EXPECT_EQ(c.peer_gid, "0000:0000:0000:0000:0000:ffff:c612:0002");
    EXPECT_EQ(c.role, 1u);
    EXPECT_EQ(c.remote, "198.18.0.2");
}

TEST(SmcDiag, TruncatedAndMalformedMessagesAreRefusedCleanly) {
    auto whole = smcr_message();
    EXPECT_THROW(parse_smc_diag_message(std::span(whole).first(sizeof(smc_diag_msg) - 1)), NetlinkFormatError);
    // cut inside the link group's attribute: its length runs past the bytes
    EXPECT_THROW(parse_smc_diag_message(std::span(whole).first(whole.size() - 20)), NetlinkFormatError);
    // an attribute claiming fewer bytes than its header
    auto bad = fallback_message();
    nlattr tiny{2, SMC_DIAG_FALLBACK};
    std::memcpy(bad.data() + sizeof(smc_diag_msg), &tiny, sizeof(tiny));
    EXPECT_THROW(parse_smc_diag_message(bad), NetlinkFormatError);
    // a fallback attribute too short for its struct
    Bytes shortf;
    shortf.put(diag_msg(SMC_DIAG_MODE_FALLBACK_TCP, "127.0.0.1", "127.0.0.1", 1, 2, 3));
    shortf.attr_of(SMC_DIAG_FALLBACK, uint32_t{0x03030000});
    EXPECT_THROW(parse_smc_diag_message(shortf.b), NetlinkFormatError);
    // a netlink header whose length lies past the buffer
    nlmsghdr h{1000, SOCK_DIAG_BY_FAMILY, NLM_F_MULTI, 1, 0};
    auto hb = Bytes().put(h).b;
    EXPECT_THROW(netlink_messages(hb), NetlinkFormatError);
}

TEST(SmcDiag, AnIpv6SocketsAddressesAndItsShutdownDecode) {
    Bytes m;
    smc_diag_msg d = diag_msg(SMC_DIAG_MODE_FALLBACK_TCP, "0.0.0.0", "0.0.0.0", 5201, 40002, 9);
    inet_pton(AF_INET6, "fd00::1", d.id.idiag_src);
    inet_pton(AF_INET6, "::ffff:198.18.0.2", d.id.idiag_dst);
    m.put(d);
    m.attr_of(SMC_DIAG_SHUTDOWN, uint8_t{2});
    SmcConnection c = parse_smc_diag_message(m.b);
    EXPECT_EQ(c.local, "fd00::1");
    EXPECT_EQ(c.remote, "::ffff:198.18.0.2");
    EXPECT_EQ(c.shutdown, 2u);
    EXPECT_FALSE(c.has_fallback);  // not in this message
}

TEST(SmcDiag, OurConnectionsAreFoundByInodeOrPorts) {
    std::vector<SmcConnection> all = {parse_smc_diag_message(fallback_message()),
                                      parse_smc_diag_message(smcr_message())};
    ASSERT_NE(find_smc_connection(all, uint64_t{777}), nullptr);
    EXPECT_EQ(find_smc_connection(all, uint64_t{777})->ib_device, "rxe0");
    EXPECT_EQ(find_smc_connection(all, uint64_t{0}), nullptr);
    EXPECT_EQ(find_smc_connection(all, uint64_t{5}), nullptr);
    ASSERT_NE(find_smc_connection(all, 40000, 5201), nullptr);
    EXPECT_EQ(find_smc_connection(all, 40000, 5201)->inode, 4242u);
    EXPECT_EQ(find_smc_connection(all, 5201, 40001)->inode, 777u);
    EXPECT_EQ(find_smc_connection(all, 1, 2), nullptr);
}

TEST(SmcCodes, KnownCodesHaveNamesAndWhatToDo) {
    EXPECT_EQ(smc_code_label(0x03030000), "0x03030000 no SMC device");
    EXPECT_NE(smc_code_text(0x03030000).find("rdma_rxe"), std::string::npos) << smc_code_text(0x03030000);
    EXPECT_EQ(smc_code_label(0x05000000), "0x05000000 peer declined");
    EXPECT_NE(smc_code_text(0x03030008).find("ueid"), std::string::npos) << smc_code_text(0x03030008);
    EXPECT_EQ(smc_code_label(0x03010000), "0x03010000 peer did not offer SMC");
    EXPECT_EQ(smc_code_label(0), "none");
    EXPECT_EQ(smc_code_class(0x03030000), "configuration error");
    EXPECT_EQ(smc_code_class(0x05000000), "the peer declined");
    // unknown: hex, never a guess; the class where the top byte is one the kernel uses
    EXPECT_EQ(smc_code_label(0x03ff0000), "0x03ff0000 unknown (configuration error class)");
    EXPECT_EQ(smc_code_label(0x0303000f), "0x0303000f unknown (a kind of 0x03030000 no SMC device)");
    EXPECT_EQ(smc_code_label(0x7f000001), "0x7f000001 unknown");
    EXPECT_EQ(smc_code_text(0x7f000001), "0x7f000001 unknown");
    EXPECT_STREQ(smc_mode_name(7), "unknown mode");
}

namespace {

uint64_t u64(uint64_t v) { return v; }

// SMC_NETLINK_GET_STATS's payload as net/smc/smc_stats.c lays it out: a SMC_GEN_STATS nest holding SMC-D's
// and SMC-R's nests (with a pad attribute and a histogram nest the parser skips) and the handshake errors.
std::vector<uint8_t> stats_payload(uint64_t smcr_tx, uint64_t client_v2_ok) {
    Bytes smcr;
    smcr.attr(SMC_NLA_STATS_T_TX_RMB_SIZE, Bytes().attr_of(SMC_NLA_STATS_PLOAD_8K, u64(3)).b);
    smcr.attr(SMC_NLA_STATS_PAD, {});
    smcr.attr_of(SMC_NLA_STATS_T_CLNT_V2_SUCC, u64(client_v2_ok));
    smcr.attr_of(SMC_NLA_STATS_T_SRV_V1_SUCC, u64(1));
    smcr.attr_of(SMC_NLA_STATS_T_TX_BYTES, u64(smcr_tx));
    smcr.attr_of(SMC_NLA_STATS_T_RX_BYTES, u64(smcr_tx / 2));
    smcr.attr_of(SMC_NLA_STATS_T_TX_CNT, u64(10));
    Bytes smcd;
    smcd.attr_of(SMC_NLA_STATS_T_RX_BYTES, u64(5));
    Bytes inner;
    inner.attr(SMC_NLA_STATS_SMCD_TECH, smcd.b).attr(SMC_NLA_STATS_SMCR_TECH, smcr.b);
    inner.attr_of(SMC_NLA_STATS_CLNT_HS_ERR_CNT, u64(4)).attr_of(SMC_NLA_STATS_SRV_HS_ERR_CNT, u64(6));
    Bytes p;
    p.put(genlmsghdr{SMC_NETLINK_GET_STATS, 1, 0});
    p.attr(SMC_GEN_STATS, inner.b);
    return p.b;
}

// One SMC_NETLINK_GET_FBACK_STATS message: the first carries the totals.
std::vector<uint8_t> fallback_payload(bool server, uint32_t code, uint16_t count, bool totals, uint64_t srv = 0,
                                      uint64_t clnt = 0) {
    Bytes inner;
    inner.attr_of(SMC_NLA_FBACK_STATS_TYPE, uint8_t{server});
    if (totals) inner.attr_of(SMC_NLA_FBACK_STATS_SRV_CNT, u64(srv)).attr_of(SMC_NLA_FBACK_STATS_CLNT_CNT, u64(clnt));
    inner.attr_of(SMC_NLA_FBACK_STATS_RSN_CODE, code).attr_of(SMC_NLA_FBACK_STATS_RSN_CNT, count);
    Bytes p;
    p.put(genlmsghdr{SMC_NETLINK_GET_FBACK_STATS, 1, 0});
    p.attr(SMC_GEN_FBACK_STATS, inner.b);
    return p.b;
}

}  // namespace

TEST(SmcStats, TheCountersParseAndTheirDeltaIsTheTestsShare) {
    SmcStats before, after;
    parse_smc_stats(stats_payload(1000, 2), before);
    ASSERT_TRUE(before.present);
    EXPECT_EQ(before.smcr.tx_bytes, 1000u);
    EXPECT_EQ(before.smcr.rx_bytes, 500u);
    EXPECT_EQ(before.smcr.client_v2_ok, 2u);
    EXPECT_EQ(before.smcr.handshakes(), 3u);
    EXPECT_EQ(before.smcr.tx_calls, 10u);
    EXPECT_EQ(before.smcd.rx_bytes, 5u);
    EXPECT_EQ(before.client_handshake_errors, 4u);
    EXPECT_EQ(before.server_handshake_errors, 6u);
    parse_smc_fallback_stats(fallback_payload(true, 0x05000000, 65535, true, 7, 3), before);
    parse_smc_fallback_stats(fallback_payload(false, 0x03030000, 3, false), before);
    ASSERT_TRUE(before.fallback_totals);
    EXPECT_EQ(before.server_fallbacks, 7u);
    EXPECT_EQ(before.client_fallbacks, 3u);
    ASSERT_EQ(before.reasons.size(), 2u);
    EXPECT_TRUE(before.reasons[0].server);
    EXPECT_EQ(before.reasons[1].code, 0x03030000u);

    parse_smc_stats(stats_payload(5000, 4), after);
    parse_smc_fallback_stats(fallback_payload(true, 0x05000000, 1, true, 9, 6), after);  // 65535 + 2, wrapped
    parse_smc_fallback_stats(fallback_payload(false, 0x03030000, 6, false), after);
    parse_smc_fallback_stats(fallback_payload(false, 0x03030008, 1, false), after);
    SmcStats d = delta(before, after);
    ASSERT_TRUE(d.present);
    EXPECT_EQ(d.smcr.tx_bytes, 4000u);
    EXPECT_EQ(d.smcr.rx_bytes, 2000u);
    EXPECT_EQ(d.smcr.client_v2_ok, 2u);
    EXPECT_EQ(d.smcr.server_v1_ok, 0u);
    EXPECT_EQ(d.server_fallbacks, 2u);
    EXPECT_EQ(d.client_fallbacks, 3u);
    ASSERT_EQ(d.reasons.size(), 3u);
    EXPECT_EQ(d.reasons[0].count, 2u);  // modulo 2^16
    EXPECT_EQ(d.reasons[1].count, 3u);
    EXPECT_EQ(d.reasons[2].code, 0x03030008u);
    EXPECT_EQ(d.reasons[2].count, 1u);
    EXPECT_TRUE(d.note.empty()) << d.note;
}

TEST(SmcStats, AbsentIsAbsentWithItsReasonNeverZeros) {
    SmcStats before, after;
    before.absent = "the kernel has no SMC_GEN_NETLINK netlink family";
    parse_smc_stats(stats_payload(1, 1), after);
    SmcStats d = delta(before, after);
    EXPECT_FALSE(d.present);
    EXPECT_EQ(d.absent, before.absent);
    // no server-side fallback recorded yet: the kernel lists no totals, and the delta says so
    SmcStats a2 = after;
    EXPECT_FALSE(a2.fallback_totals);
    parse_smc_fallback_stats(fallback_payload(true, 0x05000000, 1, true, 1, 1), a2);
    SmcStats d2 = delta(after, a2);
    EXPECT_TRUE(d2.fallback_totals);
    EXPECT_NE(d2.note.find("before the test"), std::string::npos) << d2.note;
    // malformed: a stats nest cut short
    auto cut = stats_payload(1, 1);
    cut.resize(cut.size() - 6);
    SmcStats s;
    EXPECT_THROW(parse_smc_stats(cut, s), NetlinkFormatError);
    EXPECT_THROW(parse_smc_stats(std::vector<uint8_t>{1, 2}, s), NetlinkFormatError);
}

TEST(SmcReport, TheBlockRoundTripsAndSaysFallbackOnItsFirstLine) {
    SmcSideReport r = fallback_side();
    r.connections.push_back(parse_smc_diag_message(smcr_message()));
    SmcSideReport back = smc_side_from_json(to_json(r));
    ASSERT_EQ(back.connections.size(), 3u);
    EXPECT_EQ(back.connections[0].reason, 0x03030000u);
    EXPECT_EQ(back.connections[2].ib_device, "rxe0");
    EXPECT_EQ(back.connections[2].rmb_size, 131072u);
    EXPECT_EQ(back.stats.reasons.size(), 1u);
    EXPECT_EQ(to_json(back), to_json(r));

    const KindBlockType* t = block_type();
    ASSERT_NE(t, nullptr) << "the smc block registers itself from its codec";
    SideResult side;
    auto lines = t->human_lines(t->decode(to_json(r)), side);
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines[0], smc_fallback_sentence(r));
    EXPECT_EQ(lines[0].rfind("SMC FELL BACK TO TCP on 2 of 3 connections", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find("0x03030000 no SMC device"), std::string::npos) << lines[0];
    bool smcr_line = false;
    for (const auto& l : lines) smcr_line = smcr_line || l.find("SMC-R over rxe0 port 1") != std::string::npos;
    EXPECT_TRUE(smcr_line);
    EXPECT_NE(lines.back().find("fallbacks 2 client"), std::string::npos) << lines.back();

    auto cells = t->csv_cells(to_json(r));
    ASSERT_EQ(cells.size(), t->csv_columns().size());
    EXPECT_EQ(cells[0], "3");
    EXPECT_EQ(cells[1], "1");  // SMC-R
    EXPECT_EQ(cells[3], "2");  // fallbacks
    EXPECT_EQ(cells[4], "0x03030000");
    EXPECT_EQ(cells[14], "2");  // client fallbacks

    SmcSideReport engaged;
    engaged.connections = {parse_smc_diag_message(smcr_message())};
    engaged.stats.absent = "the kernel has no SMC_GEN_NETLINK netlink family";
    EXPECT_EQ(smc_fallback_sentence(engaged), "");
    auto absent_cells = t->csv_cells(to_json(engaged));
    EXPECT_EQ(absent_cells[9], "0");
    EXPECT_EQ(absent_cells[10], "") << "absent counters are empty cells, not zeros";
    auto absent_lines = t->human_lines(to_json(engaged), side);
    EXPECT_NE(absent_lines.back().find("absent: the kernel has no"), std::string::npos) << absent_lines.back();
}

TEST(SmcReport, AMalformedBlockIsAProtocolError) {
    const KindBlockType* t = block_type();
    ASSERT_NE(t, nullptr);
    auto j = to_json(fallback_side());
    j["connections"][0]["mode"] = 300;
    EXPECT_THROW(t->decode(j), ProtocolError);
    j = to_json(fallback_side());
    j["stats"]["reasons"] = nlohmann::json::array();
    for (int i = 0; i < 65; ++i) j["stats"]["reasons"].push_back({{"code", 1}, {"server", false}, {"count", 1}});
    EXPECT_THROW(t->decode(j), ProtocolError);
    EXPECT_THROW(t->decode(nlohmann::json::array()), ProtocolError);
    j = to_json(fallback_side());
    j["connections"][0]["gid"] = std::string(41, 'g');
    EXPECT_THROW(t->decode(j), ProtocolError);
}

TEST(SmcHost, WithoutAfSmcTheReasonSaysWhatToLoad) {
    int fd = ::socket(AF_SMC, SOCK_STREAM, kSmcProtoSmc);
    if (fd >= 0) {
        ::close(fd);
        GTEST_SKIP() << "this kernel has AF_SMC sockets; the absent case is tested where it has none";
    }
    ASSERT_EQ(errno, EAFNOSUPPORT);
    const std::string why = smc_unavailable_reason();
    EXPECT_NE(why.find("modprobe -a smc smc_diag"), std::string::npos) << why;
    EXPECT_NE(why.find("smc_diag"), std::string::npos) << why;
    // the dump and the counters say absent, with the reason, never an empty list or zeros
    SmcDiagDump dump = dump_smc_connections();
    EXPECT_FALSE(dump.error.empty());
    SmcStats s = read_smc_stats();
    EXPECT_FALSE(s.present);
    EXPECT_NE(s.absent.find("SMC_GEN_NETLINK"), std::string::npos) << s.absent;
}
