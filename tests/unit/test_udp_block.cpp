// The udp kind's report block (udp/udp_info.hpp): its codec through the block's table
// (an older peer's block, a malformed one), its human line and CSV cells, and the checks across the two
// sides (the block's check_sides and count_problem), its words on a message test.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "protocol/json_fields.hpp"
#include "protocol/kind_block.hpp"
#include "protocol/result.hpp"
#include "udp/udp_info.hpp"

namespace zc {
namespace {

using nlohmann::json;

// A UDP path's block: its counts, where GSO cut (a sender's), its --rx mode (a receiver's).
UdpInfo datagram_block(const UdpCounts& counts, const std::string& gso_where, const std::string& rx_mode) {
    UdpInfo u;
    u.used = u.datagram_path = true;
    u.counts = counts;
    u.gso_where = gso_where;
    u.rx_mode = rx_mode;
    return u;
}

UdpInfo receiver_block() {
    return datagram_block({.datagrams = 998,
                           .sender_datagrams = 1000,
                           .end_marker = true,
                           .lost = 2,
                           .jitter_s = 0.0005,
                           .kernel_drops = 2,
                           .gro_buffers = 100},
                          "", "gro");
}

UdpInfo sender_block() { return datagram_block({.datagrams = 1000, .gso_size = 1472}, "none", ""); }

SideResult side_with(const UdpInfo& u, Role role, uint64_t ops) {
    SideResult s;
    s.cpu.ncpus = 2;  // a side the wire takes
    s.role = role;
    s.ops = ops;
    s.kinds[udp_block_type().key] = to_json(u);
    return s;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

bool has(const std::vector<std::string>& notes, const std::string& part) {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(part) != n.npos; });
}

TEST(UdpBlock, IsRegisteredUnderTheWiresKey) {
    const auto& types = kind_block_types();
    EXPECT_EQ(std::string(udp_block_type().key), "udp");
    EXPECT_NE(std::find(types.begin(), types.end(), &udp_block_type()), types.end())
        << "udp_info.cpp registers the udp block beside its codec";
}

TEST(UdpBlock, RoundTripsThroughTheBlockTableAndAWholeSide) {
    UdpInfo a = receiver_block();
    const json wire = to_json(a);
    EXPECT_EQ(udp_block_type().decode(wire), wire);  // made whole: nothing lost, nothing added
    // At the side's top level under "udp", as SideResult::udp was: an older peer reads it as before.
    SideResult s = side_with(a, Role::recv, 10);
    json side = to_json(s);
    ASSERT_TRUE(side.contains("udp"));
    EXPECT_EQ(side["udp"]["lost"], 2);
    EXPECT_FALSE(side["udp"].contains("bitrate"));  // -b's figures: the side's pacing section
    UdpInfo b = udp_block_of(side_result_from_json(side));
    EXPECT_TRUE(b.used);
    EXPECT_TRUE(b.datagram_path);
    EXPECT_EQ(b.rx_mode, "gro");
    EXPECT_EQ(b.counts.lost, 2u);
    EXPECT_EQ(b.counts.gro_buffers, 100u);
    EXPECT_FALSE(udp_block_of(SideResult{}).used);  // a side without the block: empty
}

TEST(UdpBlock, AnOlderPeersBlockWithoutTheSnmpCountersKeepsTheirDefault) {
    UdpInfo a = receiver_block();
    a.counts.snmp_valid = true;
    a.counts.snmp_rcvbuf_errors = 7;
    json wire = to_json(a);
    ASSERT_TRUE(wire.contains("snmp"));
    wire.erase("snmp");  // a peer that did not read /proc/net/snmp
    json whole = udp_block_type().decode(wire);
    EXPECT_FALSE(whole.contains("snmp"));
    UdpInfo b = udp_info_from_json(whole);
    EXPECT_FALSE(b.counts.snmp_valid);
    EXPECT_EQ(b.counts.snmp_rcvbuf_errors, 0u);
    EXPECT_EQ(b.counts.lost, 2u);
}

TEST(UdpBlock, AMalformedBlockIsAProtocolError) {
    json missing = to_json(receiver_block());
    missing.erase("datagrams");  // required: every peer with UDP sent it
    EXPECT_THROW(udp_block_type().decode(missing), ProtocolError);
    json wrong = to_json(receiver_block());
    wrong["lost"] = "two";
    EXPECT_THROW(udp_block_type().decode(wrong), ProtocolError);
    EXPECT_THROW(udp_block_type().decode(json::array()), ProtocolError);
    json side = to_json(side_with(receiver_block(), Role::recv, 1));
    side["udp"] = 3;  // through a whole side, as a peer's result arrives
    EXPECT_THROW(side_result_from_json(side), ProtocolError);
}

TEST(UdpBlock, HumanLinesAreTheSidesUdpLine) {
    EXPECT_EQ(joined(kind_block_lines(side_with(receiver_block(), Role::recv, 100))),
              "udp: received 998 of 1000 datagrams, lost 2 (0.200%), reordered 0, duplicates 0, jitter 0.500 ms; "
              "--rx gro, GRO: 100 coalesced buffers, 9.98 datagrams per receive; kernel: the sockets dropped 2\n");
    EXPECT_EQ(joined(kind_block_lines(side_with(sender_block(), Role::send, 250))),
              "udp: sent 1000 datagrams in 250 calls (4.0 per call), GSO segments of 1472 B, cut in no device (lo "
              "hands the whole buffer up)\n");
    UdpInfo initiator;  // rr's initiator counts no datagrams, only the answers that never came
    initiator.used = initiator.datagram_path = true;
    initiator.counts.rr_timeouts = 3;
    EXPECT_NE(joined(kind_block_lines(side_with(initiator, Role::send, 0))).find("udp: 3 requests unanswered"),
              std::string::npos);
    EXPECT_TRUE(kind_block_lines(side_with(initiator, Role::recv, 0)).empty());  // rr's responder: nothing to say
    UdpInfo older_paced_tcp;  // an older peer's paced sender of another kind: its -b figures alone, none here
    older_paced_tcp.used = true;
    EXPECT_TRUE(kind_block_lines(side_with(older_paced_tcp, Role::send, 9)).empty());
}

TEST(UdpBlock, CsvKeepsTheUdpColumnNamesAndLeavesOtherPathsEmpty) {
    const std::string header = kind_blocks_csv_header("local_");
    EXPECT_NE(header.find("local_udp_datagrams,local_udp_lost,local_udp_loss_pct,local_udp_reordered,"
                          "local_udp_duplicates,local_udp_jitter_ms,local_udp_kernel_drops,local_udp_gso_size,"
                          "local_udp_gro_buffers,local_udp_rr_timeouts"),
              std::string::npos)
        << header;
    const KindBlockType& t = udp_block_type();
    EXPECT_EQ(t.csv_cells(to_json(receiver_block())),
              (std::vector<std::string>{"998", "2", "0.2000", "0", "0", "0.500000", "2", "0", "100", "0"}));
    UdpInfo older_paced_tcp;  // an older peer's block of -b's figures alone: no datagram facts
    older_paced_tcp.used = true;
    EXPECT_EQ(t.csv_cells(to_json(older_paced_tcp)), std::vector<std::string>(t.csv_columns().size()));
}

TEST(UdpBlock, CheckAcrossSidesNamesWhatTheKernelAndTheEndMarkerSay) {
    const KindBlockType& t = udp_block_type();
    ASSERT_NE(t.check_sides, nullptr);
    UdpInfo tx = sender_block(), rx = receiver_block();
    json jt = to_json(tx), jr = to_json(rx);
    EXPECT_TRUE(t.check_sides(&jt, &jr).empty());  // drops = lost, the end marker came
    EXPECT_TRUE(t.check_sides(&jt, nullptr).empty());
    rx.counts.kernel_drops = 0;  // lost before the socket
    rx.counts.end_marker = false;
    jr = to_json(rx);
    auto notes = t.check_sides(&jt, &jr);
    EXPECT_EQ(notes.size(), 2u);
    EXPECT_TRUE(has(notes, "end marker never reached the receiver"));
    EXPECT_TRUE(has(notes, "lost before the socket"));
    // rr: the responder has no --rx mode and counts no losses.
    UdpInfo responder;
    responder.used = responder.datagram_path = true;
    json jrr = to_json(responder);
    EXPECT_TRUE(t.check_sides(&jt, &jrr).empty());
    // Through the side's blocks, as the client gathers every kind's notes.
    EXPECT_TRUE(has(kind_block_notes(side_with(tx, Role::send, 1).kinds, side_with(rx, Role::recv, 1).kinds),
                    "end marker never reached"));
}

TEST(UdpBlock, CountsAcrossSidesMustAddUp) {
    UdpInfo tx = sender_block(), rx = receiver_block();
    EXPECT_EQ(udp_count_problem(tx, 1000 * 1472, rx, 998 * 1472), "");
    EXPECT_NE(udp_count_problem(tx, 10, rx, 11).find("sender sent only 10"), std::string::npos);
    rx.counts.sender_datagrams = 999;
    EXPECT_NE(udp_count_problem(tx, 10, rx, 10).find("end marker said 999"), std::string::npos);
    rx.counts.sender_datagrams = 1000;
    rx.counts.lost = 1;
    EXPECT_NE(udp_count_problem(tx, 10, rx, 10).find("not the 1000 the sender sent"), std::string::npos);
    // The block's count_problem, through the sides, as the run driver asks: the udp block checks the counts.
    SideResult stx = side_with(tx, Role::send, 1), srx = side_with(rx, Role::recv, 1);
    stx.bytes = srx.bytes = 10;
    ASSERT_TRUE(kind_block_count_problem(stx, srx).has_value());
    EXPECT_NE(kind_block_count_problem(stx, srx)->find("not the 1000"), std::string::npos);
    EXPECT_TRUE(kind_block_counts_losses(stx));
    EXPECT_FALSE(kind_block_counts_losses(SideResult{}));
    EXPECT_FALSE(kind_block_count_problem(SideResult{}, SideResult{}).has_value());  // no kind checks: bytes match
    UdpInfo responder;  // rr: the initiator counts its own losses, no mismatch
    responder.used = responder.datagram_path = true;
    EXPECT_EQ(udp_count_problem(tx, 10, responder, 11), "");
}

TEST(UdpBlock, MessageTestsWordsAreTheBlocks) {
    SideResult s = side_with(sender_block(), Role::send, 1);
    EXPECT_NE(kind_block_messages_measured(s, Workload::rr, 1).find("within 500 ms is counted lost"),
              std::string::npos);
    EXPECT_NE(kind_block_messages_measured(s, Workload::msgrate, 8).find("8 per sendmmsg() call"), std::string::npos);
}

}  // namespace
}  // namespace zc
