// The kinds' order: the program's list of kinds is written from common/kinds.cmake's (ZCPERF_KINDS, by name),
// and their blocks, option groups and parameter tables are listed from it by name, so the CSV's kind columns
// and the human report's kind lines come in the order of the kinds' names; the transport rows come by
// (rank, name), tcp's first.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "mptcp/mptcp_report.hpp"
#include "kind/kind_module.hpp"
#include "options/kind_options.hpp"
#include "protocol/kind_block.hpp"
#include "protocol/kind_params_wire.hpp"
#include "rdma/rdma_info.hpp"
#include "protocol/result.hpp"
#include "tcp/tcp_report.hpp"
#include "udp/udp_info.hpp"
#include "smc/smc_report.hpp"
#include "tls/tls_report.hpp"

namespace zc {
namespace {

std::vector<std::string> kinds_listed() {  // common/kinds.cmake's ZCPERF_KINDS
    std::vector<std::string> out;
    std::stringstream in(ZCPERF_KINDS);
    for (std::string k; std::getline(in, k, ',');) out.push_back(k);
    return out;
}

// One side with every kind's block, each with something to print.
SideResult side_with_every_block() {
    SideResult s;
    s.role = Role::send;
    s.cpu.ncpus = 1;
    MptcpSideReport mptcp;
    mptcp.connections.resize(1);
    mptcp.connections[0].fallback = "the peer did not answer MP_CAPABLE";
    RdmaInfo rdma;
    rdma.device = "rxe0";
    TcpSideReport tcp;
    tcp.settings = {"cubic", 0, 0, "", "IPv4"};
    TlsSideReport tls;
    tls.crypto = "openssl";
    tls.version = "TLSv1.3";
    SmcSideReport smc;
    smc.stats.absent = "no SMC_GEN_NETLINK";
    UdpInfo udp;
    udp.datagram_path = true;
    s.kinds = {{mptcp_block_type().key, to_json(mptcp)}, {rdma_block_type().key, to_json(rdma)},
               {smc_block_type().key, to_json(smc)},     {tcp_block_type().key, to_json(tcp)},
               {tls_block_type().key, to_json(tls)},     {udp_block_type().key, to_json(udp)}};
    return s;
}

TEST(KindOrder, EveryListedKindHasOneModuleAndItsBlockInTheOrderOfTheNames) {
    const std::vector<std::string> listed = kinds_listed();
    ASSERT_EQ(listed, (std::vector<std::string>{"mptcp", "rdma", "smc", "tcp", "tls", "udp"}));
    std::vector<std::string> modules, descriptions, keys;
    for (const KindModule* m : kind_modules()) modules.push_back(m->description->name);
    for (const KindDescription* d : kind_descriptions()) descriptions.push_back(d->name);
    for (const auto* t : kind_block_types()) keys.push_back(t->key);
    EXPECT_EQ(modules, listed);
    EXPECT_EQ(descriptions, listed);
    EXPECT_EQ(keys, listed);
}

TEST(KindOrder, TransportRowsComeByRankThenKindAndEachNamesItsKind) {
    const auto& rows = transport_table();
    ASSERT_FALSE(rows.empty());
    EXPECT_STREQ(rows.front().name, "tcp");  // Transport{}: -T's default
    EXPECT_EQ(rows.front().id, Transport{});
    std::vector<std::string> kinds_in_order;
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(static_cast<size_t>(rows[i].id), i) << rows[i].name;
        ASSERT_NE(rows[i].kind, nullptr) << rows[i].name;
        if (kinds_in_order.empty() || kinds_in_order.back() != rows[i].kind) kinds_in_order.push_back(rows[i].kind);
    }
    EXPECT_EQ(kinds_in_order, (std::vector<std::string>{"tcp", "mptcp", "rdma", "smc", "tls", "udp"}));
    for (const auto& row : rows) {  // every built row's kind has the table it names
        if (row.built) {
            EXPECT_NO_THROW(transport_ops(row.id)) << row.name;
        }
    }
}

TEST(KindOrder, OptionGroupsAndParameterTablesComeByName) {
    std::vector<std::string> titles, keys;
    for (const auto* g : kind_option_groups()) titles.push_back(g->title);
    for (const auto* w : kind_params_wires()) keys.push_back(w->key);
    ASSERT_GE(titles.size(), 3u);  // rdma's, tls's, udp's
    EXPECT_TRUE(std::is_sorted(titles.begin(), titles.end())) << titles.front();
    ASSERT_GE(keys.size(), 3u);  // rdma's, its sides', udp's
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end())) << keys.front();
}

TEST(KindOrder, CsvKindColumnsComeInTheKindsOrder) {
    const std::string header = kind_blocks_csv_header("local_");
    std::vector<size_t> at;
    for (const auto* t : kind_block_types()) {
        const std::string prefix = t->csv_prefix ? t->csv_prefix : std::string(t->key) + "_";
        const std::string first = "local_" + prefix + t->csv_columns().front();
        at.push_back(header.find(first));
        EXPECT_NE(at.back(), std::string::npos) << first;
    }
    EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
    EXPECT_EQ(header.rfind("local_mptcp_connections", 0), 0u) << header.substr(0, 80);  // mptcp's first
    // and each side's cells in the same places as the header's columns
    const std::string cells = kind_blocks_csv_cells(side_with_every_block().kinds);
    EXPECT_EQ(std::count(cells.begin(), cells.end(), ','), std::count(header.begin(), header.end(), ','));
}

TEST(KindOrder, HumanKindLinesComeInTheKindsOrder) {
    const SideResult s = side_with_every_block();
    std::vector<std::string> expected;
    for (const auto* t : kind_block_types()) {
        auto own = t->human_lines(s.kinds.at(t->key), s);
        EXPECT_FALSE(own.empty()) << t->key << " prints nothing: the order would not be tested";
        expected.insert(expected.end(), own.begin(), own.end());
    }
    const auto lines = kind_block_lines(s);
    EXPECT_EQ(lines, expected);
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines.front().find("mptcp"), std::string::npos) << lines.front();  // mptcp's lines first
}

}  // namespace
}  // namespace zc
