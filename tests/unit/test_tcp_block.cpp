// The TCP family's report block (tcp/tcp_report.hpp): its codec through the block's table,
// flat at the side's top level under the keys SideResult had (an older peer's side, a malformed one), its
// human lines and CSV cells, and the readers that take their figures from it (crr's measured line, the
// JSON report's limited_by).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "protocol/interval.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/kind_block.hpp"
#include "protocol/message_stats.hpp"
#include "protocol/result.hpp"
#include "tcp/tcp_report.hpp"

namespace zc {
namespace {

using nlohmann::json;

TcpSample sample(uint32_t rtt_us, uint64_t retransmits) {
    TcpSample t;
    t.interval_s = 10;
    t.has_chrono = true;
    t.rtt_us = rtt_us;
    t.snd_cwnd = 10;
    t.snd_ssthresh = kInfiniteSsthresh;
    t.retransmits = retransmits;
    t.bytes_acked = 1250000000;
    t.delivery_rate_Bps = 125000000;  // 1 Gb/s
    t.bytes_sent = 1250000000;
    t.busy = 0.9;
    t.sndbuf_limited = 0.63;
    return t;
}

TcpSideReport receiver_report() {
    TcpSideReport r;
    r.streams = {sample(40, 0)};
    r.settings = {"cubic", 0, 0, "", "IPv4"};
    r.rcv_lowat = 256 << 10;
    return r;
}

TcpSideReport crr_sender_report() {
    TcpSideReport r;
    r.settings = {"bbr", 125000000, 0x10, "lo", "IPv6"};
    r.connection_close = "close() after the response";
    return r;
}

SideResult side_with(const TcpSideReport& t, Role role) {
    SideResult s;
    s.cpu.ncpus = 2;  // a side the wire takes
    s.role = role;
    s.kinds[tcp_block_type().key] = to_json(t);
    return s;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

// The cell under `column` (a full name) of one side's kind cells.
std::string cell(const std::string& header, const std::string& cells, const std::string& column) {
    auto split = [](const std::string& s) {
        std::vector<std::string> out(1);
        for (char c : s) {
            if (c == ',')
                out.emplace_back();
            else
                out.back().push_back(c);
        }
        return out;
    };
    auto h = split(header), c = split(cells);
    auto at = std::find(h.begin(), h.end(), column);
    if (at == h.end() || h.size() != c.size()) return "<no column " + column + ">";
    return c[static_cast<size_t>(at - h.begin())];
}

TEST(TcpBlock, IsRegisteredFlatWithColumnsNamedInFull) {
    const auto& types = kind_block_types();
    const KindBlockType& t = tcp_block_type();
    EXPECT_EQ(std::string(t.key), "tcp");
    EXPECT_TRUE(t.flat);
    ASSERT_NE(t.csv_prefix, nullptr);
    EXPECT_EQ(std::string(t.csv_prefix), "");
    EXPECT_NE(std::find(types.begin(), types.end(), &t), types.end())
        << "tcp_report.cpp registers the tcp block beside its codec";
}

TEST(TcpBlock, RoundTripsAtTheSidesTopLevelUnderTheKeysSideResultHad) {
    const TcpSideReport a = receiver_report();
    const json side = to_json(side_with(a, Role::recv));
    EXPECT_FALSE(side.contains("tcp"));  // flat: no key of its own on the wire
    ASSERT_TRUE(side.contains("tcp_info"));
    ASSERT_EQ(side["tcp_info"].size(), 1u);
    EXPECT_EQ(side["tcp_info"][0]["rtt_us"], 40);
    EXPECT_EQ(side["tcp_settings"]["congestion"], "cubic");
    EXPECT_EQ(side["rcv_lowat"], 256 << 10);
    EXPECT_FALSE(side.contains("connection_close"));       // sent only where there is one
    EXPECT_EQ(tcp_block_type().decode(side), to_json(a));  // made whole from the side: nothing lost or added
    const TcpSideReport b = tcp_block_of(side_result_from_json(side));
    ASSERT_EQ(b.streams.size(), 1u);
    EXPECT_EQ(b.streams[0].rtt_us, 40u);
    EXPECT_EQ(b.streams[0].bytes_acked, 1250000000u);
    EXPECT_DOUBLE_EQ(b.streams[0].sndbuf_limited, 0.63);
    EXPECT_EQ(b.settings.congestion, "cubic");
    EXPECT_EQ(b.settings.family, "IPv4");
    EXPECT_EQ(b.rcv_lowat, 256u << 10);
    const TcpSideReport c = tcp_block_of(side_result_from_json(to_json(side_with(crr_sender_report(), Role::send))));
    EXPECT_EQ(c.connection_close, "close() after the response");
    EXPECT_EQ(c.settings.bind_dev, "lo");
    EXPECT_EQ(c.settings.max_pacing_Bps, 125000000u);
    EXPECT_TRUE(c.streams.empty());
    EXPECT_TRUE(tcp_block_of(SideResult{}).empty());  // a side without the block: empty
}

TEST(TcpBlock, AnOlderPeersSideDecodesIntoTheBlockWithDefaultsForWhatItLacks) {
    json side = to_json(side_with(receiver_report(), Role::recv));
    side.erase("rcv_lowat");                              // a peer from before --rcvlowat
    side["tcp_info"][0].erase("mean_delivery_rate_Bps");  // ... and before the interval's delivery rate
    side["tcp_info"][0].erase("limited_by");              // a reader's figure, never decoded
    const TcpSideReport b = tcp_block_of(side_result_from_json(side));
    EXPECT_EQ(b.rcv_lowat, 0u);
    ASSERT_EQ(b.streams.size(), 1u);
    EXPECT_EQ(b.streams[0].delivery_rate_Bps, 0u);
    EXPECT_EQ(b.streams[0].rtt_us, 40u);
    EXPECT_EQ(b.settings.congestion, "cubic");
    // An older peer's UDP or RDMA side sent "rcv_lowat": 0 and nothing else of TCP's: no block made up.
    SideResult none;
    none.cpu.ncpus = 2;
    json older = to_json(none);
    older["rcv_lowat"] = 0;
    EXPECT_EQ(side_result_from_json(older).kinds.count("tcp"), 0u);
}

TEST(TcpBlock, AMalformedFieldIsAProtocolErrorNamingIt) {
    const json good = to_json(side_with(crr_sender_report(), Role::send));
    auto rejects = [](const json& side, const std::string& field) {
        try {
            side_result_from_json(side);
            ADD_FAILURE() << field << " accepted";
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    json j = good;
    j["connection_close"] = std::string(201, 'c');
    rejects(j, "connection_close");
    j = good;
    j["tcp_info"] = 3;
    rejects(j, "tcp_info");
    j = good;
    j["tcp_settings"]["tos"] = 256;
    rejects(j, "tos");
    j = good;
    j["rcv_lowat"] = "256K";
    rejects(j, "rcv_lowat");
    EXPECT_THROW(tcp_block_type().decode(json::array()), ProtocolError);
}

TEST(TcpBlock, HumanLinesAreTheSettingsAndEachStreamsTcpInfo) {
    EXPECT_EQ(joined(kind_block_lines(side_with(crr_sender_report(), Role::send))),
              "tcp: IPv6 bbr, pacing cap 1.00 Gb/s, tos 0x10, bound to lo\n");
    const std::string rx = joined(kind_block_lines(side_with(receiver_report(), Role::recv)));
    EXPECT_NE(rx.find("tcp: IPv4 cubic, pacing cap none, tos 0x00; recv woken at 256K queued (SO_RCVLOWAT)\n"),
              std::string::npos)
        << rx;
    EXPECT_NE(rx.find("stream 0: rtt 40 us (var 0), cwnd 10, ssthresh -, 0 retransmits, delivery 1.00 Gb/s"),
              std::string::npos)
        << rx;
    EXPECT_NE(rx.find("sndbuf-limited"), std::string::npos) << rx;  // the limit line under the stream
    TcpSideReport many = receiver_report();
    many.streams.assign(6, sample(50, 1));
    const std::string six = joined(kind_block_lines(side_with(many, Role::recv)));
    EXPECT_NE(six.find("stream 3: "), std::string::npos) << six;
    EXPECT_EQ(six.find("stream 4: "), std::string::npos) << six;  // the first four, then all as one
    EXPECT_NE(six.find("all 6 streams: rtt 50 us (var 0), cwnd 10, ssthresh -, 6 retransmits"), std::string::npos)
        << six;
}

// --flows: a stream's sample is all its connections as one (tcp/tcp_ops.cpp sums them), and the block
// says so on the wire and in its lines; an older peer, which read only a stream's first connection, says
// nothing and decodes as one connection per stream.
TEST(TcpBlock, AStreamWithFlowsIsItsConnectionsAsOneAndSaysSo) {
    TcpSideReport flows = receiver_report();
    flows.connections_per_stream = 16;
    const json side = to_json(side_with(flows, Role::recv));
    EXPECT_EQ(side["tcp_info_connections_per_stream"], 16);
    EXPECT_EQ(tcp_block_of(side_result_from_json(side)).connections_per_stream, 16u);
    const std::string lines = joined(kind_block_lines(side_with(flows, Role::recv)));
    EXPECT_NE(lines.find("stream 0 (16 connections as one): rtt 40 us"), std::string::npos) << lines;
    json older = side;
    older.erase("tcp_info_connections_per_stream");
    EXPECT_EQ(tcp_block_of(side_result_from_json(older)).connections_per_stream, 1u);
    EXPECT_FALSE(to_json(side_with(receiver_report(), Role::recv)).contains("tcp_info_connections_per_stream"));
    json bad = side;
    bad["tcp_info_connections_per_stream"] = 0;
    EXPECT_THROW(tcp_block_of(side_result_from_json(bad)), ProtocolError);
}

// The sum of a receiver's connections (none sent) averages their RTT and cwnd rather than leaving them 0;
// beside a sender, the receiving ones are left out of the averages as before.
TEST(TcpBlock, ReceivingConnectionsAloneAreAveragedNotDropped) {
    TcpSample rx1 = sample(10, 0), rx2 = sample(30, 0);
    rx1.bytes_sent = rx2.bytes_sent = 0;
    const TcpSample both = tcp_summary({rx1, rx2});
    EXPECT_EQ(both.rtt_us, 20u);
    EXPECT_EQ(both.snd_cwnd, 10u);
    EXPECT_EQ(both.bytes_acked, 2500000000u);
    // One connection's summary is that connection's sample, every field as the wire carries it
    // (tcp/tcp_ops.cpp sums every stream's connections, one or many).
    for (const TcpSample& t : {rx1, sample(50, 2)}) {
        TcpSideReport alone, summed;
        alone.streams = {t};
        summed.streams = {tcp_summary({t})};
        EXPECT_EQ(to_json(summed), to_json(alone));
    }
    const TcpSample mixed = tcp_summary({rx1, sample(50, 2)});
    EXPECT_EQ(mixed.rtt_us, 50u);
    EXPECT_EQ(mixed.retransmits, 2u);
}

TEST(TcpBlock, CsvKeepsTheColumnNamesTheSideHadAndLeavesOtherPathsEmpty) {
    const std::string header = kind_blocks_csv_header("local_");
    EXPECT_NE(header.find("local_rcv_lowat,local_tcp_congestion,local_tcp_max_pacing_rate_Bps,local_tcp_tos,"
                          "local_tcp_bind_dev,local_tcp_family,local_tcp_retransmits,local_tcp_rtt_us"),
              std::string::npos)
        << header;
    EXPECT_NE(header.find("local_tcp_sndbuf_limited_pct"), std::string::npos) << header;
    const std::string rx = kind_blocks_csv_cells(side_with(receiver_report(), Role::recv).kinds);
    EXPECT_EQ(cell(header, rx, "local_rcv_lowat"), "262144");
    EXPECT_EQ(cell(header, rx, "local_tcp_congestion"), "cubic");
    EXPECT_EQ(cell(header, rx, "local_tcp_tos"), "0");
    EXPECT_EQ(cell(header, rx, "local_tcp_rtt_us"), "40");
    EXPECT_EQ(cell(header, rx, "local_tcp_sndbuf_limited_pct"), "63.00");
    const std::string crr = kind_blocks_csv_cells(side_with(crr_sender_report(), Role::send).kinds);
    EXPECT_EQ(cell(header, crr, "local_tcp_family"), "IPv6");
    EXPECT_EQ(cell(header, crr, "local_tcp_rtt_us"), "");  // crr: no stream's TCP_INFO
    const std::string none = kind_blocks_csv_cells({});
    EXPECT_EQ(cell(header, none, "local_rcv_lowat"), "");  // not a TCP socket: empty
    EXPECT_EQ(tcp_info_csv_cells({}), std::vector<std::string>(tcp_info_csv_columns().size()));
}

TEST(TcpBlock, CrrsMeasuredLineGetsTheCloseMethodThroughTheBlock) {
    SideResult c = side_with(crr_sender_report(), Role::send), s;
    s.role = Role::recv;
    for (SideResult* x : {&c, &s}) {
        x->elapsed_s = x->cpu.elapsed_s = 1;
        x->cpu.ncpus = 2;
        x->messages.messages = 100;
    }
    const MessageResult m = message_result(Workload::crr, transport_named("tcp"), 1, c, s, 1.0);
    EXPECT_NE(m.measured.find("a new TCP connection per transaction"), std::string::npos) << m.measured;
    EXPECT_NE(m.measured.find("; close() after the response"), std::string::npos) << m.measured;
    EXPECT_EQ(kind_block_method_note(side_with(receiver_report(), Role::recv).kinds), "");
}

TEST(TcpBlock, TheJsonReportCarriesEachStreamsLimit) {
    const json side = to_json(side_with(receiver_report(), Role::send));
    ASSERT_TRUE(side["tcp_info"][0].contains("limited_by"));
    EXPECT_EQ(side["tcp_info"][0]["limited_by"], tcp_limit_line(receiver_report().streams[0]));
    EXPECT_NE(side["tcp_info"][0]["limited_by"].get<std::string>().find("sndbuf-limited"), std::string::npos);
}

// --interval: the TCP block of one side's interval (TCP_INFO alone) travels in the interval as "tcp_info",
// as SideInterval::tcp did, without the side's settings or rcv_lowat.
SideInterval interval_with(const std::vector<TcpSample>& streams) {
    SideInterval s;
    s.index = 2;
    s.start_s = 1;
    s.end_s = 2;
    TcpSideReport t;
    t.streams = streams;
    s.kinds[tcp_block_type().key] = to_json(t);
    return s;
}

TEST(TcpBlock, AnIntervalCarriesTcpInfoAloneUnderItsOldKey) {
    const json j = to_json(interval_with({sample(40, 2), sample(60, 1)}));
    ASSERT_TRUE(j.contains("tcp_info"));
    EXPECT_EQ(j["tcp_info"].size(), 2u);
    EXPECT_EQ(j["tcp_info"][1]["rtt_us"], 60);
    for (const char* f : {"rcv_lowat", "tcp_settings", "connection_close", "tcp"}) EXPECT_FALSE(j.contains(f)) << f;
    const SideInterval back = side_interval_from_json(j);
    ASSERT_EQ(back.kinds.count("tcp"), 1u);
    const TcpSideReport t = tcp_side_report_from_json(back.kinds.at("tcp"));
    ASSERT_EQ(t.streams.size(), 2u);
    EXPECT_EQ(t.streams[0].retransmits, 2u);
    EXPECT_TRUE(side_interval_from_json(to_json(SideInterval{})).kinds.empty());  // not TCP: no block
    json bad = j;
    bad["tcp_info"][0]["ca_state"] = 256;
    EXPECT_THROW(side_interval_from_json(bad), ProtocolError);
}

TEST(TcpBlock, AnIntervalsLineAndCsvCellsAreTheSendingSidesTcpInfo) {
    TcpSample receiving = sample(10, 0);
    receiving.bytes_sent = 0;  // the receiver's side: its window says little, the sender's line is the one
    const SideInterval tx = interval_with({sample(40, 3)}), rx = interval_with({receiving});
    EXPECT_EQ(kind_blocks_interval_text(&tx.kinds, &rx.kinds),
              " | tcp retr 3 cwnd 10 rtt 40 us busy 90% rwnd 0% sndbuf 63%");
    EXPECT_EQ(kind_blocks_interval_text(&rx.kinds, &tx.kinds), kind_blocks_interval_text(&tx.kinds, &rx.kinds));
    EXPECT_EQ(kind_blocks_interval_text(nullptr, &tx.kinds), kind_blocks_interval_text(&tx.kinds, nullptr));
    EXPECT_EQ(kind_blocks_interval_text(nullptr, nullptr), "");
    const std::string header = kind_blocks_interval_csv_header("local_");
    EXPECT_NE(header.find(",local_tcp_retransmits,local_tcp_rtt_us,"), std::string::npos) << header;
    EXPECT_EQ(header.find("tcp_congestion"), std::string::npos) << header;  // the settings are the side's
    const std::string cells = kind_blocks_interval_csv_cells(&tx.kinds);
    EXPECT_EQ(cell(header.substr(1), cells.substr(1), "local_tcp_retransmits"), "3");
    EXPECT_EQ(cell(header.substr(1), cells.substr(1), "local_tcp_rtt_us"), "40");
    EXPECT_EQ(cell(header.substr(1), kind_blocks_interval_csv_cells(nullptr).substr(1), "local_tcp_rtt_us"), "");
}

}  // namespace
}  // namespace zc
