#pragma once
// TCP_INFO and the socket settings in a result and an interval: their JSON, one field table each
// (field_table.hpp), so the server's figures cross the wire bounded and named like every other.
//
// A side's TCP figures are the TCP family's block (protocol/kind_block.hpp): the kinds that run
// kernel TCP sockets (tcp, and the kinds that reuse its table) fill it at the end of the side's run
// (tcp/tcp_ops.hpp's write_tcp_block) and the tcp kind's table registers it. It is flat: its fields sit at the side's
// top level under the keys they had when they were SideResult's own (tcp_info, tcp_settings, connection_close,
// rcv_lowat, flow_bytes), so an older peer's result decodes into it and a newer one's decodes in an older peer. An
// --interval's block (the tcp kind's interval_block: each stream's TCP_INFO between the interval's edges)
// is the same codec with the streams alone, under "tcp_info" as SideInterval::tcp was.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tcp/flow_stats.hpp"
#include "tcp/tcp_stats.hpp"
#include "protocol/kind_block.hpp"

namespace zc {

struct SideResult;

struct TcpSideReport {
    // Each stream's TCP_INFO over the measured interval (stream order); none for crr and cc (each
    // transaction opens its own connection) nor where the kind reads none (a multipath kind's would be one
    // subflow's: its own block has them all).
    std::vector<TcpSample> streams;
    // --flows: each stream's sample is its connections' as one (counts and rates summed, RTT and cwnd
    // averaged); 1 without (absent: an older peer, which read only a stream's first connection).
    uint32_t connections_per_stream = 1;
    TcpTuningInForce settings;     // what the data sockets ran with, read back (congestion "": not read)
    std::string connection_close;  // crr, cc's initiator: how each transaction's connection closes, in words
    uint64_t rcv_lowat = 0;        // stream receivers: SO_RCVLOWAT in force (0: not a stream receiver)
    // --flows: the bytes each connection moved (streams x flows of them; empty without --flows) and their figures
    // (on the wire and in the report as the side's "flow_bytes" and "flows"). The two sides group the flows into
    // threads each in its own way, so flows are compared as a multiset (flow_count_problem).
    std::vector<uint64_t> flow_bytes;
    FlowFigures flows;

    bool empty() const;
};

nlohmann::json to_json(const TcpSideReport& t);  // its fields as the side's top level holds them; null when empty
// From a whole side's JSON (the fields it lacks keep their defaults); throws ProtocolError naming a bad one.
TcpSideReport tcp_side_report_from_json(const nlohmann::json& side);

// The block's table (key "tcp", flat), which the kind's description lists (tcp_report.cpp).
const KindBlockType& tcp_block_type();
// A side's TCP block, decoded (empty where the side has none: not a TCP socket).
TcpSideReport tcp_block_of(const SideResult& side);

// --flows: the sender's and the receiver's per-flow counts ("" they agree, or neither side ran flows), and
// whether the side ran flows (its streams are its own grouping of them, so the sides' per-stream counts differ).
std::string flow_count_problem(const SideResult& sender, const SideResult& receiver);
bool ran_flows(const SideResult& side);

// TCP_INFO's CSV columns ("tcp_retransmits", ...) and one list's cells, all streams as one (tcp_summary:
// counts summed, RTT, cwnd and the shares averaged), empty where none was read: the result's block's and
// each --csv-intervals row's.
std::vector<std::string> tcp_info_csv_columns();
std::vector<std::string> tcp_info_csv_cells(const std::vector<TcpSample>& streams);

}  // namespace zc
