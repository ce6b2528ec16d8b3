// The mptcp kind's pure pieces: MPTCP_INFO parsed from the kernel's bytes (a 6.18 fixture, and the
// shorter struct of older kernels), the subflows' sum check, the block's JSON both ways (an older peer's
// missing fields keep their defaults), its CSV cells and human lines through the generic kind-block table,
// and, on a kernel with MPTCP, a real loopback connection read back, and one that fell back to TCP.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/unique_fd.hpp"
#include "mptcp/mptcp_kernel.hpp"
#include "mptcp/mptcp_report.hpp"
#include "protocol/frame.hpp"
#include "protocol/result.hpp"

using namespace zc;

namespace {

std::vector<uint8_t> hex_fixture(const std::string& name) {
    std::ifstream f(std::string(ZCPERF_FIXTURES) + "/mptcp/" + name);
    std::vector<uint8_t> out;
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line);
        unsigned v;
        while (in >> std::hex >> v) out.push_back(static_cast<uint8_t>(v));
    }
    return out;
}

MptcpConnectionReport one_subflow(uint64_t acked, uint64_t conn_acked, uint64_t retrans) {
    MptcpConnectionReport c;
    c.mptcp = true;
    c.has_bytes = true;
    c.bytes_acked = conn_acked;
    c.bytes_sent = conn_acked;
    c.bytes_retrans = retrans;
    c.subflows.push_back({1, "127.0.0.1:1000", "127.0.0.1:2000", acked, 0});
    return c;
}

const KindBlockType* block_type() {
    for (const auto* t : kind_block_types())
        if (std::string(t->key) == "mptcp") return t;
    return nullptr;
}

}  // namespace

TEST(MptcpInfo, ParsesTheKernelsBytes) {
    auto bytes = hex_fixture("mptcp_info_6.18_client.hex");
    ASSERT_EQ(bytes.size(), 96u);
    MptcpInfo m = parse_mptcp_info(bytes.data(), bytes.size());
    EXPECT_EQ(m.flags, 2u);
    EXPECT_FALSE(m.fallback());
    EXPECT_TRUE(m.has_bytes);
    EXPECT_EQ(m.bytes_sent, 10485760u);
    EXPECT_EQ(m.bytes_acked, 10485761u);
    EXPECT_EQ(m.bytes_received, 0u);
    EXPECT_EQ(m.bytes_retrans, 0u);
    EXPECT_EQ(m.subflows_total, 1u);
}

TEST(MptcpInfo, AnOlderKernelsShorterStructHasNoByteCounters) {
    auto bytes = hex_fixture("mptcp_info_6.18_client.hex");
    MptcpInfo m = parse_mptcp_info(bytes.data(), 48);  // 6.1's struct mptcp_info, padded
    EXPECT_EQ(m.flags, 2u);
    EXPECT_FALSE(m.has_bytes);
    EXPECT_EQ(m.bytes_sent, 0u);
    EXPECT_EQ(m.subflows_total, 0u);
    bytes[8] |= 1;  // MPTCP_INFO_FLAG_FALLBACK
    EXPECT_TRUE(parse_mptcp_info(bytes.data(), bytes.size()).fallback());
}

// The host's zero-window probes, from a 6.18 kernel's /proc/net/netstat; an older kernel counts none.
TEST(MptcpKernel, ReadsTheHostsZeroWindowProbes) {
    const std::string dir = std::string(ZCPERF_FIXTURES) + "/mptcp/";
    EXPECT_EQ(read_mptcp_window_probes(dir + "netstat_6.18.txt"), std::optional<uint64_t>(128));
    EXPECT_EQ(read_mptcp_window_probes(dir + "netstat_no_winprobe.txt"), std::nullopt);
    EXPECT_EQ(read_mptcp_window_probes(dir + "no_such_file"), std::nullopt);
}

TEST(MptcpReport, SubflowsMustAddUpWithinTheKernelsOwnCounts) {
    EXPECT_EQ(subflow_sum_problem(one_subflow(104878105, 104857608, 20496)), "");  // measured on loopback
    EXPECT_NE(subflow_sum_problem(one_subflow(104857608 - 100, 104857608, 0)), "");
    EXPECT_NE(subflow_sum_problem(one_subflow(104857608 + 5000, 104857608, 0)), "");
    MptcpConnectionReport two = one_subflow(600, 1000, 0);
    two.subflows.push_back({2, "10.0.1.1:1", "10.0.1.2:2", 401, 0});
    EXPECT_EQ(subflow_sum_problem(two), "");
    MptcpConnectionReport fell_back;
    fell_back.fallback = "MPTCP_INFO refused";
    EXPECT_EQ(subflow_sum_problem(fell_back), "");  // nothing to add up; reported as a fallback instead
}

// Two subflows read by a loaded two-link run's sender (MptcpTwoLinks): a maerts server read while 4.6 MB
// were in flight, its subflows having TCP-acked 2.9 MB the connection had not yet data-acked; and a stream
// client whose subflows counted 7 bytes beyond what was sent and reinjected.
TEST(MptcpReport, ASendersSubflowsReadInFlightMayHaveAckedMoreThanTheConnection) {
    MptcpConnectionReport maerts = one_subflow(177941172, 347677224, 132680);
    maerts.bytes_sent = 352321536;
    maerts.subflows.push_back({2, "198.18.12.2:35585", "198.18.12.1:52440", 172786864, 0});
    EXPECT_EQ(subflow_sum_problem(maerts), "");
    maerts.subflows[1].bytes_acked += 352321536 + 132680 - 350728036 + 9;  // beyond all it sent: a problem
    EXPECT_NE(subflow_sum_problem(maerts), "");
    MptcpConnectionReport stream = one_subflow(137310700, 271581193, 135232);
    stream.bytes_sent = 271581192;
    stream.subflows.push_back({2, "198.18.12.1:42963", "198.18.12.2:39083", 134405731, 1});
    EXPECT_EQ(subflow_sum_problem(stream), "");
}

TEST(MptcpReport, JsonBothWaysAndOlderPeers) {
    MptcpSideReport r;
    r.connections.push_back(one_subflow(1001, 1000, 0));
    r.connections[0].source = "MPTCP_FULL_INFO";
    r.note = "a note";
    MptcpSideReport back = mptcp_side_from_json(to_json(r));
    ASSERT_EQ(back.connections.size(), 1u);
    EXPECT_TRUE(back.connections[0].mptcp);
    EXPECT_EQ(back.connections[0].bytes_acked, 1000u);
    ASSERT_EQ(back.connections[0].subflows.size(), 1u);
    EXPECT_EQ(back.connections[0].subflows[0].local, "127.0.0.1:1000");
    EXPECT_EQ(back.connections[0].subflows[0].bytes_acked, 1001u);
    EXPECT_EQ(back.note, "a note");
    auto older = nlohmann::json::parse(R"({"connections": [{"mptcp": true, "subflows": [{"local": "a"}]}]})");
    back = mptcp_side_from_json(older);
    EXPECT_FALSE(back.connections[0].has_bytes);
    EXPECT_EQ(back.connections[0].subflows[0].bytes_acked, 0u);
    EXPECT_THROW(mptcp_side_from_json(nlohmann::json::parse(R"({"connections": 3})")), ProtocolError);
    EXPECT_THROW(mptcp_side_from_json(nlohmann::json::parse(R"({"connections": [{"bytes_acked": -1}]})")),
                 ProtocolError);
}

TEST(KindBlock, ASideResultCarriesTheKindsBlockThroughTheTable) {
    const KindBlockType* t = block_type();
    ASSERT_NE(t, nullptr) << "mptcp_report.cpp registers the mptcp block beside its codec";
    MptcpSideReport r;
    r.connections.push_back(one_subflow(1001, 1000, 0));
    SideResult s;
    s.cpu.ncpus = 2;
    s.kinds["mptcp"] = to_json(r);
    SideResult back = side_result_from_json(to_json(s));
    ASSERT_EQ(back.kinds.count("mptcp"), 1u);
    EXPECT_EQ(back.kinds.at("mptcp"), s.kinds.at("mptcp"));
    SideResult none;
    none.cpu.ncpus = 2;
    EXPECT_EQ(side_result_from_json(to_json(none)).kinds.size(), 0u);  // no block: none made up
    auto lines = kind_block_lines(back);
    ASSERT_GE(lines.size(), 3u);
    EXPECT_NE(lines[1].find("127.0.0.1:1000 -> 127.0.0.1:2000: 1001 B acked"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("100.0%"), std::string::npos) << lines[1];
    EXPECT_NE(lines[2].find("subflows sum to the connection"), std::string::npos) << lines[2];
    std::string header = kind_blocks_csv_header("local_");
    std::string cells = kind_blocks_csv_cells(back.kinds);
    EXPECT_NE(header.find("local_mptcp_subflows_bytes_acked"), std::string::npos);
    EXPECT_EQ(std::count(header.begin(), header.end(), ','), std::count(cells.begin(), cells.end(), ','));
    // the kinds' columns come by name (common/kinds.cmake's list): mptcp's first
    EXPECT_EQ(header.rfind("local_mptcp_connections", 0), 0u) << header.substr(0, 80);
    EXPECT_EQ(cells.substr(0, 6), "1,0,1,");
    EXPECT_EQ(kind_blocks_csv_cells({}).find_first_not_of(','), std::string::npos);  // a side without: empty cells
}

// A loaded loopback run's sender (this session): its subflow acked 94 B beyond the data and the reinjections,
// and the host's MPTcpExt WinProbe rose by 94 over the run, run after run (5 and 5, 0 and 0): each probe
// re-sends one data-acked byte. Counted, they add up; where the kernel does not count them, they do not.
TEST(MptcpReport, ZeroWindowProbesTheHostCountedAddUp) {
    MptcpConnectionReport c = one_subflow(1019936777 + 70592 + 94, 1019936777, 70592);
    c.bytes_sent = 1019936776;  // acked holds the DATA_FIN too
    EXPECT_NE(subflow_sum_problem(c), "");
    c.probes_counted = true;
    c.window_probes = 94;
    EXPECT_EQ(subflow_sum_problem(c), "");
    c.subflows[0].bytes_acked += 5000;  // beyond the probes too: a problem still, naming them
    EXPECT_NE(subflow_sum_problem(c).find("+ 94 zero-window probes"), std::string::npos) << subflow_sum_problem(c);

    // The receiver's subflows count the probes' bytes twice as well, allowed by the sender's count.
    MptcpSideReport tx, rx;
    tx.connections.push_back(one_subflow(1000 + 40 + 12, 1000, 40));
    MptcpConnectionReport r = one_subflow(0, 0, 0);
    r.bytes_received = 1000;
    r.subflows[0].bytes_received = 1000 + 40 + 12;
    rx.connections.push_back(r);
    EXPECT_EQ(kind_block_notes({{"mptcp", to_json(tx)}}, {{"mptcp", to_json(rx)}}).size(), 1u);
    tx.connections[0].probes_counted = true;
    tx.connections[0].window_probes = 12;
    EXPECT_TRUE(kind_block_notes({{"mptcp", to_json(tx)}}, {{"mptcp", to_json(rx)}}).empty());
    // The count travels in the block, and a block without it (an older peer's) counts none.
    MptcpSideReport back = mptcp_side_from_json(to_json(tx));
    EXPECT_TRUE(back.connections[0].probes_counted);
    EXPECT_EQ(back.connections[0].window_probes, 12u);
    nlohmann::json old = to_json(tx);
    old["connections"][0].erase("probes_counted");
    old["connections"][0].erase("window_probes");
    EXPECT_FALSE(mptcp_side_from_json(old).connections[0].probes_counted);
}

TEST(KindBlock, TheTwoSidesAreComparedByTheKind) {
    MptcpSideReport tx, rx;
    tx.connections.push_back(one_subflow(1001, 1000, 0));
    MptcpConnectionReport r = one_subflow(0, 0, 0);
    r.bytes_received = 1000;
    r.subflows[0].bytes_received = 1000 + 5000;  // counted twice, but the sender reinjected nothing
    rx.connections.push_back(r);
    auto notes = kind_block_notes({{"mptcp", to_json(tx)}}, {{"mptcp", to_json(rx)}});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("reinjected only 0 B"), std::string::npos) << notes[0];
    rx.connections[0].subflows[0].bytes_received = 1000;
    EXPECT_TRUE(kind_block_notes({{"mptcp", to_json(tx)}}, {{"mptcp", to_json(rx)}}).empty());
    rx.connections[0].mptcp = false;
    rx.connections[0].fallback = "MPTCP_INFO refused";
    notes = kind_block_notes({{"mptcp", to_json(tx)}}, {{"mptcp", to_json(rx)}});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("plain TCP, not MPTCP"), std::string::npos) << notes[0];
}

// A real connection over loopback: one subflow whose bytes match the connection's; and a TCP client on
// an MPTCP listener, which falls back: reported as plain TCP, never as MPTCP.
TEST(MptcpKernel, ReadsALoopbackConnectionAndAFallback) {
    if (std::string why = mptcp_unavailable(); !why.empty()) GTEST_SKIP() << why;
    UniqueFd listener(::socket(AF_INET, SOCK_STREAM, 262));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ASSERT_EQ(::listen(listener.get(), 4), 0);
    socklen_t len = sizeof(a);
    getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &len);
    for (int protocol : {262, 0}) {
        UniqueFd client(::socket(AF_INET, SOCK_STREAM, protocol));
        ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
        UniqueFd server(::accept(listener.get(), nullptr, nullptr));
        static char buf[1 << 16];
        for (int i = 0; i < 16; ++i) {
            ASSERT_EQ(::write(client.get(), buf, sizeof(buf)), static_cast<ssize_t>(sizeof(buf)));
            for (size_t got = 0; got < sizeof(buf);) got += ::read(server.get(), buf, sizeof(buf) - got);
        }
        usleep(20000);  // the last acknowledgements
        MptcpConnectionReport tx = connection_report(read_mptcp(client.get()));
        MptcpConnectionReport rx = connection_report(read_mptcp(server.get()));
        if (protocol == 0) {
            EXPECT_FALSE(rx.mptcp);
            EXPECT_NE(rx.fallback.find("plain TCP"), std::string::npos) << rx.fallback;
            continue;
        }
        ASSERT_TRUE(tx.mptcp) << tx.fallback;
        ASSERT_TRUE(rx.mptcp) << rx.fallback;
        ASSERT_EQ(tx.subflows.size(), 1u);
        ASSERT_EQ(rx.subflows.size(), 1u);
        EXPECT_EQ(tx.subflows[0].local, rx.subflows[0].remote);
        if (!tx.has_bytes) continue;  // a kernel before 6.5
        EXPECT_EQ(tx.bytes_sent, 16u << 16);
        EXPECT_EQ(rx.bytes_received, 16u << 16);
        EXPECT_EQ(subflow_sum_problem(tx), "");
        EXPECT_EQ(subflow_sum_problem(rx), "");
        EXPECT_GE(rx.subflow_received(), 16u << 16);
    }
}

// A kernel before 6.5 (the lab's Debian 12 guests run 6.1) gives subflows but no connection byte counters:
// the human lines say so and show the subflows' sum, never the absent counters as "connection sent 0 B".
TEST(KindBlock, AnOlderKernelsConnectionSaysItHasNoByteCounters) {
    MptcpConnectionReport c = one_subflow(1001, 0, 0);
    c.has_bytes = false;
    c.source = "MPTCP_TCPINFO, MPTCP_SUBFLOW_ADDRS";
    c.subflows.push_back({0, "10.0.2.1:1", "10.0.2.2:2", 500, 7});
    MptcpSideReport r;
    r.connections.push_back(c);
    SideResult side;
    side.kinds["mptcp"] = to_json(r);
    auto lines = kind_block_lines(side);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_NE(lines[0].find("2 subflows (MPTCP_TCPINFO, MPTCP_SUBFLOW_ADDRS); no connection byte counters in this "
                            "kernel (MPTCP_INFO has them from Linux 6.5)"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(lines[0].find("connection sent"), std::string::npos) << lines[0];
    EXPECT_NE(lines[2].find("subflow 2 10.0.2.1:1 -> 10.0.2.2:2: 500 B acked, 7 B received"), std::string::npos)
        << lines[2];  // no id from the kernel: its position
    EXPECT_NE(lines[3].find("subflows' sum: acked 1501 B, received 7 B"), std::string::npos) << lines[3];
    EXPECT_EQ(subflow_sum_problem(c), "");  // nothing to check against: no warning either
}
