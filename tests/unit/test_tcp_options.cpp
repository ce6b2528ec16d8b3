// zcperf's TCP option rows: -C, --fq-rate, --tos, --bind-dev, -4/-6, --bidir, --crr-close
// land in the spec both sides receive, and each bad value or combination is refused with exit code 2
// (the refusals' wording is the e2e test's, tests/e2e/test_tcp_features.cpp). The capability rule
// refuses them, and crr/cc, on transports whose rows lack them.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include "kind/spec_rules.hpp"
#include "parse_cli.hpp"
#include "tcp/tcp_tuning.hpp"
#include "tcp/tcp_params.hpp"

using namespace zc;
using zc::test::parse;

namespace {

TEST(TcpOptions, EachLandsInTheSpec) {
    ClientOptions o;
    auto avail = available_congestion_controls();
    std::string algo = avail.empty() ? "cubic" : avail.front();
    ASSERT_EQ(parse({"-C", algo, "--fq-rate", "100M", "--tos", "0x10", "--bind-dev", "lo", "-6"}, o), -1);
    EXPECT_EQ(tcp_params(o.params).congestion, algo);
    EXPECT_EQ(tcp_params(o.params).max_pacing_Bps, 12'500'000u);  // bits/s to the kernel's bytes/s
    EXPECT_EQ(tcp_params(o.params).tos, 0x10);
    EXPECT_EQ(tcp_side_params(o.local).bind_dev, "lo");
    EXPECT_EQ(tcp_side_params(o.remote).bind_dev, "");  // the client's interface only
    EXPECT_EQ(o.family, AF_INET6);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 1u);
    EXPECT_EQ(tcp_params(specs[0]).congestion, algo);
    EXPECT_EQ(tcp_params(specs[0]).tos, 0x10);
    // On the wire under the names the shared spec gave them (an older server reads them); --bind-dev stays here.
    nlohmann::json server = to_json(server_half(specs[0]));
    EXPECT_EQ(server["congestion"], algo);
    EXPECT_EQ(server["tos"], 0x10);
    EXPECT_EQ(server["max_pacing_Bps"], 12'500'000u);
    EXPECT_EQ(server["bind_dev"], "");
    EXPECT_EQ(to_json(side_half(specs[0], specs[0].local))["bind_dev"], "lo");

    ClientOptions m;
    ASSERT_EQ(parse({"--fq-rate", "2.5G", "-4"}, m), -1);
    EXPECT_EQ(tcp_params(m.params).max_pacing_Bps, 312'500'000u);
    EXPECT_EQ(m.family, AF_INET);
}

TEST(TcpOptions, CrrAndCcTakeOneByteAndTheCloseMethod) {
    ClientOptions o;
    ASSERT_EQ(parse({"-t", "crr,cc", "--crr-close", "fin"}, o), -1);
    EXPECT_EQ(tcp_params(o.params).crr_close, CrrClose::fin);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_EQ(specs[0].test, Workload::crr);
    EXPECT_EQ(specs[0].message_size, 1u);  // netperf's TCP_CRR default, as rr's
    EXPECT_EQ(specs[1].test, Workload::cc);
    ClientOptions d;
    ASSERT_EQ(parse({"-t", "crr"}, d), -1);
    EXPECT_EQ(tcp_params(d.params).crr_close, CrrClose::rst);
}

TEST(TcpOptions, BidirIsStreamOnce) {
    ClientOptions o;
    ASSERT_EQ(parse({"--bidir"}, o), -1);
    EXPECT_TRUE(o.bidir);
    for (std::vector<std::string> bad : {std::vector<std::string>{"--bidir", "-t", "maerts"},
                                         {"--bidir", "-t", "stream,maerts"},
                                         {"--bidir", "-D", "0.5"},
                                         {"--bidir", "-i", "5,3"}})
        EXPECT_EQ(parse(bad), 2) << bad[1];
}

TEST(TcpOptions, BadValuesReturnTwo) {
    for (std::vector<std::string> bad : {
             std::vector<std::string>{"-C", "no-such-algorithm"},
             {"-C", "a-name-longer-than-sixteen"},
             {"--fq-rate", "0"},
             {"--fq-rate", "0.0"},
             {"--fq-rate", "fast"},
             {"--fq-rate", "10"},  // under 1 kbit/s
             {"--tos", "256"},
             {"--tos", "-1"},
             {"--tos", "0x1g"},
             {"--bind-dev", "an-interface-name-too-long"},
             {"-4", "-6"},
             {"--crr-close", "fin"},  // not crr or cc
             {"-t", "crr", "--crr-close", "reset"},
             {"-t", "crr", "-T", "tcp-sendfile"},
             {"-t", "cc", "-T", "udp"},
             {"-t", "crr", "-n", "1M"},
             {"-t", "crr", "--rx", "zerocopy"},
             {"-T", "udp", "--tos", "16"},
         })
        EXPECT_EQ(parse(bad), 2) << bad[0] << " " << bad[1];
}

// The rule reads the rows: every transport whose row lacks crr refuses it, naming the rows that run it.
TEST(TcpOptions, TheRowsSayWhoRunsCrrAndTheTcpSettings) {
    for (const TransportInfo& t : transport_table()) {
        TestSpec spec;
        spec.transport = t.id;
        spec.test = Workload::crr;
        spec.message_size = 1;
        std::string why = spec_problem(side_half(spec, spec.local), Role::send);
        if (t.tests & bit(Workload::crr)) {
            EXPECT_EQ(why, "") << t.name;
        } else {
            std::string rows =
                transport_names_where([](const TransportInfo& r) { return r.tests & bit(Workload::crr); });
            EXPECT_NE(why.find("runs over -T " + rows + ", not " + std::string(t.name)), std::string::npos) << why;
        }
        TestSpec cc;
        cc.transport = t.id;
        cc.kind_params.set(kTcpParams).congestion = "reno";
        std::string tuning = spec_problem(side_half(cc, cc.local), Role::send);
        EXPECT_EQ(tuning.find("set TCP sockets") != std::string::npos, !t.tcp_sockets) << t.name << ": " << tuning;
    }
}

}  // namespace
