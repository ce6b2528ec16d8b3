// --under-load and --load-cpu: what the options parse to, the sweep they make, the load's own
// stream test, and the combinations refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cli.hpp"
#include "parse_cli.hpp"
#include "protocol/messages.hpp"
#include "protocol/result.hpp"
#include "tcp/tcp_params.hpp"
#include "under_load.hpp"

using namespace zc;

TEST(UnderLoad, ParsesCountsAndTheLoadsTransport) {
    auto one = parse_under_load("1");
    EXPECT_EQ(one.counts, std::vector<int>{1});
    EXPECT_FALSE(one.transport);
    auto sweep = parse_under_load("0,1,4:tcp-msgzc");
    EXPECT_EQ(sweep.counts, (std::vector<int>{0, 1, 4}));
    ASSERT_TRUE(sweep.transport);
    EXPECT_EQ(*sweep.transport, transport_from_name("tcp-msgzc"));
    for (const char* bad : {"", "x", "-1", "1,1", "1,", ",1", "1:", "1:nope", "257", "1.5"})
        EXPECT_THROW(parse_under_load(bad), std::invalid_argument) << bad;
}

TEST(UnderLoad, AListSweepsEachTransactionTest) {
    ClientOptions o;
    ASSERT_EQ(zc::test::parse({"-t", "rr", "-m", "1,64", "--under-load", "0,1,4", "--load-cpu", "0,1"}, o), -1);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 6u);  // two sizes x three counts, the counts innermost
    const int want[] = {0, 1, 4, 0, 1, 4};
    for (size_t i = 0; i < specs.size(); ++i) {
        EXPECT_TRUE(specs[i].load.asked);
        EXPECT_EQ(specs[i].load.streams, want[i]);
        EXPECT_EQ(specs[i].load.local_cpus, std::vector<int>{0});
        EXPECT_EQ(specs[i].load.remote_cpus, std::vector<int>{1});
    }
    ClientOptions plain;
    ASSERT_EQ(zc::test::parse({"-t", "rr"}, plain), -1);
    ASSERT_EQ(expand_tests(plain).size(), 1u);
    EXPECT_FALSE(expand_tests(plain)[0].load.asked);
}

TEST(UnderLoad, TheLoadIsAPlainStreamTestAroundTheTest) {
    ClientOptions o;
    ASSERT_EQ(zc::test::parse({"-t", "rr", "-m", "64", "-l", "3", "--cpu", "1,1", "--percentiles", "50,99.99",
                               "--under-load", "2:tcp-msgzc", "--load-cpu", "0"},
                              o),
              -1);
    const TestSpec rr = expand_tests(o).at(0);
    const TestSpec load = load_spec(rr);
    EXPECT_EQ(load.test, Workload::stream);
    EXPECT_EQ(load.transport, transport_from_name("tcp-msgzc"));
    EXPECT_EQ(load.streams, 2);
    EXPECT_EQ(load.message_size, default_message_size(Workload::stream, load.transport));
    EXPECT_DOUBLE_EQ(load.duration_s, 3 + 2 * kLoadLeadS);  // it starts before the rr's interval, ends after
    EXPECT_EQ(load.local.cpus, std::vector<int>{0});        // --load-cpu, not the rr's --cpu
    EXPECT_TRUE(load.remote.cpus.empty());
    EXPECT_FALSE(load.load.asked);  // no load beside the load
    EXPECT_EQ(load_problem(rr), "");
    // Without a transport the load takes the test's own.
    ClientOptions same;
    ASSERT_EQ(zc::test::parse({"-t", "rr", "-T", "udp", "--under-load", "1"}, same), -1);
    EXPECT_EQ(load_spec(expand_tests(same).at(0)).transport, transport_from_name("udp"));
}

TEST(UnderLoad, RefusesWhatCannotRunSayingWhatWould) {
    EXPECT_EQ(zc::test::parse({"-t", "stream", "--under-load", "1"}), 2);  // nothing timed beside the load
    EXPECT_EQ(zc::test::parse({"-t", "rr,msgrate", "--under-load", "1"}), 2);
    EXPECT_EQ(zc::test::parse({"-t", "rr", "--load-cpu", "0"}), 2);  // a placement without a load
    EXPECT_EQ(zc::test::parse({"-t", "rr", "--under-load", "1", "-i", "3"}), 2);
    EXPECT_EQ(zc::test::parse({"-t", "rr", "--under-load", "1:nope"}), 2);
    EXPECT_EQ(zc::test::parse({"-t", "rr", "--under-load", "1,1"}), 2);
    // The load's stream test goes through the capability rules (load_problem): today every row runs stream,
    // so every built transport passes as a load beside a tcp rr (none takes the rr's RDMA device or interface
    // when its row has none: a tcp load beside an rdma rr, or an rdma load beside a --bind-dev tcp rr).
    ClientOptions o;
    ASSERT_EQ(zc::test::parse({"-t", "rr", "--under-load", "1", "--bind-dev", "lo"}, o), -1);
    TestSpec rr = expand_tests(o).at(0);
    for (const std::string& name : available_transports()) {
        rr.load.transport = transport_from_name(name);
        EXPECT_EQ(load_problem(rr), "") << name;
        const TestSpec load = load_spec(rr);
        EXPECT_EQ(tcp_side_params(load.local).bind_dev.empty(), !transport_info(load.transport).tcp_sockets) << name;
    }
    rr.load.streams = 0;
    EXPECT_EQ(load_problem(rr), "");  // alone: nothing to check
}

TEST(UnderLoad, TheReportObjectRoundTrips) {
    LoadBeside l;
    l.asked = true;
    l.streams = 4;
    l.transport = "tcp";
    l.message_size = 1 << 20;
    l.bytes = 123456789;
    l.elapsed_s = 4.0;
    l.throughput_gbps = 0.24;
    l.local_cpu_pct = 97.5;
    l.remote_cpu_pct = 96.0;
    l.local_cpus = {0, 1};
    l.remote_cpus = {1};
    l.lead_s = 0.5;
    l.tail_s = 0.48;
    const nlohmann::json j = to_json(l);
    EXPECT_EQ(j.at("streams"), 4);
    EXPECT_EQ(j.at("throughput_gbps"), 0.24);
    const LoadBeside back = load_beside_from_json(j);
    EXPECT_EQ(to_json(back), j);
    nlohmann::json bad = j;
    bad["local_cpu_util_pct"] = 250.0;  // a rank's out-of-range figure is refused, not reported
    EXPECT_THROW(load_beside_from_json(bad), ProtocolError);
    // The stream figures it shares with the test's own lines keep the load's bounds.
    EXPECT_EQ(j.at("message_size"), 1 << 20);
    EXPECT_EQ(j.at("bytes"), 123456789);
    bad = j;
    bad["streams"] = kMaxStreams + 1;
    EXPECT_THROW(load_beside_from_json(bad), ProtocolError);
    bad = j;
    bad.erase("elapsed_s");  // every field is required, as before
    EXPECT_THROW(load_beside_from_json(bad), ProtocolError);
}

TEST(UnderLoad, AServerThatDoesNotSayItServesTheLoadIsRefused) {
    Welcome now;
    now.software = "zcserver now";
    now.features = server_features();
    EXPECT_EQ(under_load_support_problem(now), "");
    Welcome old = now;  // the release before --under-load listed these
    old.features = {kFeatureIntervals, kFeatureExplain, kFeatureFlows};
    const std::string why = under_load_support_problem(old);
    EXPECT_NE(why.find("predates --under-load"), std::string::npos) << why;
    Welcome exclusive = now;
    exclusive.features = server_features(true);  // one test at a time: no second test beside the rr
    EXPECT_NE(under_load_support_problem(exclusive).find("--exclusive"), std::string::npos);
}
