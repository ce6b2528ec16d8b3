// zcperf's command line: options into ClientOptions, bad options into exit code 2, tests in run order.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "parse_cli.hpp"
#include "cli.hpp"
#include "rdma/rdma_options.hpp"
#include "system/affinity.hpp"
#include "system/numa.hpp"
#include "mptcp/mptcp_params.hpp"
#include "tcp/tcp_params.hpp"

using namespace zc;
using zc::test::parse;

TEST(Cli, Defaults) {
    ClientOptions o;
    ASSERT_EQ(parse({}, o), -1);
    EXPECT_TRUE(o.servers.empty());
    EXPECT_EQ(o.port, 12875);
    EXPECT_EQ(o.tests, std::vector<Workload>{Workload::stream});
    EXPECT_EQ(o.transports, std::vector<Transport>{transport_named("tcp")});
    EXPECT_EQ(o.rx_modes, std::vector<RxMode>{RxMode::copy});
    EXPECT_FALSE(tcp_params(o.params).uring_fixed);
    EXPECT_EQ(o.message_sizes, std::vector<uint64_t>{1u << 20});
    EXPECT_DOUBLE_EQ(o.params.duration_s, 10);
    EXPECT_EQ(o.params.total_bytes, 0u);
    EXPECT_EQ(o.params.streams, 1);
    EXPECT_EQ(o.params.alignment, 4096u);
    EXPECT_EQ(o.output, "human");
    EXPECT_EQ(o.goal.max_iterations, 1);
    EXPECT_EQ(o.goal.min_iterations, 1);
    EXPECT_EQ(o.connect_timeout_ms, 5000);
    EXPECT_TRUE(o.local.cpus.empty());
    EXPECT_TRUE(o.remote.cpus.empty());
    EXPECT_EQ(o.local.socket_buffer, 0u);
    EXPECT_EQ(tcp_params(o.params).rcv_lowat, 0u);  // not given: the kind's default
    EXPECT_EQ(rcv_lowat_of(o.params), 256u << 10);
    EXPECT_EQ(o.local.mem_node, -1);
    EXPECT_EQ(o.remote.mem_node, -1);
    EXPECT_TRUE(o.local.irq_cpus.empty());
    EXPECT_TRUE(o.remote.irq_cpus.empty());
    EXPECT_EQ(o.command_line, "zcperf");
}

TEST(Cli, ManyGoodOptions) {
    ClientOptions o;
    ASSERT_EQ(parse({"-H",
                     "server1",
                     "-H",
                     "10.0.0.2:5000",
                     "-p",
                     "6000",
                     "-t",
                     "stream,maerts",
                     "-m",
                     "64K..256K",
                     "-l",
                     "5",
                     "-P",
                     "4",
                     "-s",
                     "4M",
                     "-S",
                     "2M",
                     "--align",
                     "64K",
                     "-o",
                     "json",
                     "--connect-timeout",
                     "1500"},
                    o),
              -1);
    EXPECT_EQ(o.servers, (std::vector<std::string>{"server1", "10.0.0.2:5000"}));
    EXPECT_EQ(o.port, 6000);
    EXPECT_EQ(o.tests, (std::vector<Workload>{Workload::stream, Workload::maerts}));
    EXPECT_EQ(o.message_sizes, (std::vector<uint64_t>{65536, 131072, 262144}));
    EXPECT_DOUBLE_EQ(o.params.duration_s, 5);
    EXPECT_EQ(o.params.streams, 4);
    EXPECT_EQ(o.local.socket_buffer, 4u << 20);
    EXPECT_EQ(o.remote.socket_buffer, 2u << 20);
    EXPECT_EQ(o.params.alignment, 65536u);
    EXPECT_EQ(o.output, "json");
    EXPECT_EQ(o.connect_timeout_ms, 1500);
    EXPECT_EQ(o.command_line,
              "zcperf -H server1 -H 10.0.0.2:5000 -p 6000 -t stream,maerts -m 64K..256K -l 5 -P 4 -s 4M -S 2M "
              "--align 64K -o json --connect-timeout 1500");
}

TEST(Cli, LongOptionNamesAndLimits) {
    ClientOptions o;
    ASSERT_EQ(parse({"--host", "h", "--test", "maerts", "--transport", "tcp", "--message-size", "1G", "--duration",
                     "86400", "--streams", "256", "--output", "csv", "--align", "2M"},
                    o),
              -1);
    EXPECT_EQ(o.tests, std::vector<Workload>{Workload::maerts});
    EXPECT_EQ(o.message_sizes, std::vector<uint64_t>{1ull << 30});
    EXPECT_DOUBLE_EQ(o.params.duration_s, 86400);
    EXPECT_EQ(o.params.streams, 256);
    EXPECT_EQ(o.output, "csv");
    EXPECT_EQ(o.params.alignment, 2u << 20);
    ClientOptions p;
    ASSERT_EQ(parse({"-m", "1", "-l", "0.01", "--align", "1", "-s", "1G"}, p), -1);
    EXPECT_EQ(p.message_sizes, std::vector<uint64_t>{1});
    EXPECT_DOUBLE_EQ(p.params.duration_s, 0.01);
    EXPECT_EQ(p.params.alignment, 1u);
    EXPECT_EQ(p.local.socket_buffer, 1u << 30);
}

TEST(Cli, TransportsAndReceiveModes) {
    ClientOptions o;
    ASSERT_EQ(
        parse({"-T", "tcp,tcp-sendfile,tcp-msgzc,tcp-uringzc", "--rx", "copy,zerocopy,splice,trunc", "--uring-fixed"},
              o),
        -1);
    EXPECT_EQ(o.transports, (std::vector<Transport>{transport_named("tcp"), transport_named("tcp-sendfile"),
                                                    transport_named("tcp-msgzc"), transport_named("tcp-uringzc")}));
    EXPECT_EQ(o.rx_modes, (std::vector<RxMode>{RxMode::copy, RxMode::zerocopy, RxMode::splice, RxMode::trunc}));
    EXPECT_TRUE(tcp_params(o.params).uring_fixed);
    ClientOptions p;
    ASSERT_EQ(parse({"--transport", "tcp-msgzc", "--rx", "zerocopy"}, p), -1);
    EXPECT_EQ(p.transports, std::vector<Transport>{transport_named("tcp-msgzc")});
    EXPECT_EQ(p.rx_modes, std::vector<RxMode>{RxMode::zerocopy});
    EXPECT_FALSE(tcp_params(p.params).uring_fixed);
}

TEST(Cli, ByteTotal) {
    ClientOptions o;
    ASSERT_EQ(parse({"-n", "10G"}, o), -1);
    EXPECT_EQ(o.params.total_bytes, 10ull << 30);
}

TEST(Cli, CpuPinning) {
    auto allowed = allowed_cpus();
    ASSERT_FALSE(allowed.empty());
    std::string c0 = std::to_string(allowed.front()), cl = std::to_string(allowed.back());
    ClientOptions o;
    ASSERT_EQ(parse({"--cpu", c0 + "+" + cl + ",5+7"}, o), -1);
    EXPECT_EQ(o.local.cpus, (std::vector<int>{allowed.front(), allowed.back()}));
    EXPECT_EQ(o.remote.cpus, (std::vector<int>{5, 7}));  // the server's CPUs are checked by the server
    ClientOptions r;
    ASSERT_EQ(parse({"--cpu", ",60000"}, r), -1);
    EXPECT_TRUE(r.local.cpus.empty());
    EXPECT_EQ(r.remote.cpus, std::vector<int>{60000});
}

TEST(Cli, MemNode) {
    auto nodes = numa_node_list();
    ASSERT_FALSE(nodes.empty());
    std::string n0 = std::to_string(nodes.front());
    ClientOptions o;
    ASSERT_EQ(parse({"--mem-node", n0 + ",3"}, o), -1);
    EXPECT_EQ(o.local.mem_node, nodes.front());
    EXPECT_EQ(o.remote.mem_node, 3);  // the server checks its own nodes
    ClientOptions r;
    ASSERT_EQ(parse({"--mem-node", ",2"}, r), -1);
    EXPECT_EQ(r.local.mem_node, -1);
    EXPECT_EQ(r.remote.mem_node, 2);
    ClientOptions l;
    ASSERT_EQ(parse({"--mem-node", n0}, l), -1);
    EXPECT_EQ(l.local.mem_node, nodes.front());
    EXPECT_EQ(l.remote.mem_node, -1);
}

TEST(Cli, IrqCpus) {
    auto allowed = allowed_cpus();
    ASSERT_FALSE(allowed.empty());
    ClientOptions o;
    ASSERT_EQ(parse({"--irq-cpus", std::to_string(allowed.front()) + ",4+5", "--cpu", ",1"}, o), -1);
    EXPECT_EQ(o.local.irq_cpus, std::vector<int>{allowed.front()});
    EXPECT_EQ(o.remote.irq_cpus, (std::vector<int>{4, 5}));
    EXPECT_TRUE(o.local.cpus.empty());  // independent of --cpu
    EXPECT_EQ(o.remote.cpus, std::vector<int>{1});
}

// --irq-cpus names the host's CPUs, not this process's: a launcher binds each rank to a core (mpirun), and
// a rank bound to one CPU still moves the host's IRQs to another. --cpu pins this process's threads: its
// own mask bounds it.
TEST(Cli, IrqCpusAreTheHostsOnlineCpusNotThisThreadsMask) {
    auto online = online_cpus();
    if (online.size() < 2) GTEST_SKIP() << "one CPU online";
    cpu_set_t saved, one;
    ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
    CPU_ZERO(&one);
    CPU_SET(online.front(), &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // this thread, as a launcher binds a rank
    const std::string other = std::to_string(online.back());
    ClientOptions o, c;
    int irq_rc = parse({"--irq-cpus", other}, o), cpu_rc = parse({"--cpu", other}, c);
    sched_setaffinity(0, sizeof saved, &saved);
    EXPECT_EQ(irq_rc, -1);
    EXPECT_EQ(o.local.irq_cpus, std::vector<int>{online.back()});
    EXPECT_EQ(cpu_rc, 2);
}

TEST(Cli, OnlineCpusFromSysfs) {
    auto root = std::filesystem::temp_directory_path() / ("zc-online-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root / "devices/system/cpu");
    std::ofstream(root / "devices/system/cpu/online") << "0-3,6\n";
    EXPECT_EQ(online_cpus(root.string()), (std::vector<int>{0, 1, 2, 3, 6}));
    std::filesystem::remove_all(root);
    std::vector<int> counted;  // unreadable: the host's online count from 0, not this process's binding
    for (long i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); ++i) counted.push_back(static_cast<int>(i));
    EXPECT_EQ(online_cpus(root.string()), counted);
}

// --invocations N: every test's rounds N times over; with --bidir or --under-load (which run theirs once) refused.
TEST(Cli, Invocations) {
    ClientOptions o;
    EXPECT_EQ(o.invocations, 1);
    ASSERT_EQ(parse({"-i", "3,3", "--invocations", "3"}, o), -1);
    EXPECT_EQ(o.invocations, 3);
    ClientOptions zero, bidir;
    EXPECT_EQ(parse({"--invocations", "0"}, zero), 2);
    EXPECT_EQ(parse({"--invocations", "2", "--bidir"}, bidir), 2);
}

TEST(Cli, IterationsAndConfidence) {
    ClientOptions o;
    ASSERT_EQ(parse({"-i", "10,3", "-I", "95,2"}, o), -1);
    EXPECT_EQ(o.goal.max_iterations, 10);
    EXPECT_EQ(o.goal.min_iterations, 3);
    EXPECT_DOUBLE_EQ(o.goal.level_pct, 95);
    EXPECT_DOUBLE_EQ(o.goal.width_pct, 2);
    ClientOptions a;
    ASSERT_EQ(parse({"-i", "10"}, a), -1);  // MIN defaults to 3
    EXPECT_EQ(a.goal.max_iterations, 10);
    EXPECT_EQ(a.goal.min_iterations, 3);
    EXPECT_DOUBLE_EQ(a.goal.level_pct, 99);
    EXPECT_DOUBLE_EQ(a.goal.width_pct, 5);
    ClientOptions b;
    ASSERT_EQ(parse({"-i", "2"}, b), -1);  // ... but never above MAX
    EXPECT_EQ(b.goal.max_iterations, 2);
    EXPECT_EQ(b.goal.min_iterations, 2);
    ClientOptions c;
    ASSERT_EQ(parse({"-I", "99"}, c), -1);  // -I alone: netperf's 10,3 iterations; WIDTH defaults to 5
    EXPECT_EQ(c.goal.max_iterations, 10);
    EXPECT_EQ(c.goal.min_iterations, 3);
    EXPECT_DOUBLE_EQ(c.goal.level_pct, 99);
    EXPECT_DOUBLE_EQ(c.goal.width_pct, 5);
    ClientOptions d;
    ASSERT_EQ(parse({"-i", "30,30", "-I", "50,0.5"}, d), -1);
    EXPECT_EQ(d.goal.max_iterations, 30);
    EXPECT_EQ(d.goal.min_iterations, 30);
    EXPECT_DOUBLE_EQ(d.goal.level_pct, 50);
    EXPECT_DOUBLE_EQ(d.goal.width_pct, 0.5);
}

TEST(Cli, HelpAndVersionExitZero) {
    std::string store[] = {"zcperf", "--help"};
    char* argv[] = {store[0].data(), store[1].data(), nullptr};
    ClientOptions o;
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(parse_client_options(2, argv, o), 0);
    const std::string help = ::testing::internal::GetCapturedStdout();
    // The kinds' own examples (KindModule::help_examples) after zcperf's stream and message examples, before
    // the RDMA ones, in the rows' order: tcp's first (-T's default), then the others by name.
    const auto crr = help.find("zcperf -t crr -P 2"), tcp = help.find("zcperf -T tcp,tcp-sendfile,tcp-msgzc"),
               bbr = help.find("zcperf -C bbr"), udp = help.find("zcperf -T udp -b 1G -l 5"),
               gso = help.find("zcperf -T udp,udp-gso,udp-msgzc --gso-size 1472 --rx gro"),
               rdma = help.find("zcperf -H 10.0.0.2 -T rdma-write,rdma-send,rsocket");
    ASSERT_NE(crr, std::string::npos) << help;
    ASSERT_NE(tcp, std::string::npos) << help;
    ASSERT_NE(udp, std::string::npos) << help;
    ASSERT_NE(gso, std::string::npos) << help;
    EXPECT_LT(crr, tcp);
    EXPECT_LT(tcp, bbr);
    EXPECT_LT(bbr, udp);
    EXPECT_LT(udp, gso);
    EXPECT_LT(gso, rdma);
    EXPECT_NE(rdma, std::string::npos);
    EXPECT_EQ(parse({"-h"}), 0);
    EXPECT_EQ(parse({"--version"}), 0);
}

TEST(Cli, BadOptionsReturnTwo) {
    const std::vector<std::vector<std::string>> bad{
        {"--bogus"},
        {"-H"},
        {"stray-positional"},
        {"-p", "70000"},
        {"-p", "x"},
        {"-P", "0"},
        {"-P", "257"},
        {"-P", "x"},
        {"-P", "1.5"},
        {"-l", "0"},
        {"-l", "0.001"},
        {"-l", "86401"},
        {"-l", "x"},
        {"-o", "xml"},
        {"-t", "tcp_crr"},
        {"-t", "stream,"},
        {"-t", "stream,bogus"},
        {"-T", "sctp"},
        {"-T", "tcp,rdma"},
        {"-T", "tcp-zc"},
        {"-T", "TCP"},
        {"-T", "tcp,"},
        {"--rx", "mmap"},
        {"--rx", "copy,"},
        {"--rx", ""},
        {"--rx", "zero-copy"},
        {"--uring-fixed=maybe"},
        {"-m", "0"},
        {"-m", "2G"},
        {"-m", "64Ki"},
        {"-m", "4M..64K"},
        {"-m", "64K,0"},
        {"-m", "512M..2G"},
        {"-m", ""},
        {"-n", "0"},
        {"-n", "x"},
        {"-n", "1G", "-l", "5"},
        {"-s", "2G"},
        {"-S", "1T"},
        {"-s", "4Mi"},
        {"--rcvlowat", "0"},
        {"--rcvlowat", "2G"},
        {"--rcvlowat", "x"},
        {"--rcvlowat", "-1"},
        {"--align", "3"},
        {"--align", "0"},
        {"--align", "4M"},
        {"--align", "6K"},
        {"--align", "x"},
        {"--cpu", "0,1,2"},
        {"--cpu", "x"},
        {"--cpu", "99999"},
        {"--cpu", "60000"},
        {"--cpu", "0,1;2"},
        {"-i", "31"},
        {"-i", "0"},
        {"-i", "5,6"},
        {"-i", "10,0"},
        {"-i", "a,b"},
        {"-i", "1,2,3"},
        {"-I", "100,5"},
        {"-I", "40,5"},
        {"-I", "99,x"},
        {"-I", "x"},
        {"--connect-timeout", "50"},
        {"--connect-timeout", "600001"},
        {"--mem-node", "0+1"},
        {"--mem-node", "0,1+2"},
        {"--mem-node", "60000"},
        {"--mem-node", "x"},
        {"--mem-node", "0,1,2"},
        {"--mem-node", "-1"},
        {"--irq-cpus", "60000"},
        {"--irq-cpus", "x"},
        {"--irq-cpus", "0,1,2"},
        {"--irq-cpus", "3-1"},
    };
    for (const auto& args : bad) {
        std::vector<std::string> store{"zcperf"};
        store.insert(store.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& s : store) argv.push_back(s.data());
        ClientOptions o;
        ::testing::internal::CaptureStdout();
        ::testing::internal::CaptureStderr();
        int rc = parse_client_options(static_cast<int>(store.size()), argv.data(), o);
        ::testing::internal::GetCapturedStdout();
        std::string err = ::testing::internal::GetCapturedStderr();
        std::string shown;
        for (const auto& a : args) shown += a + " ";
        EXPECT_EQ(rc, 2) << "zcperf " << shown;
    }
}

TEST(Cli, BadOptionSaysWhatToDo) {
    std::vector<std::string> store{"zcperf", "--align", "3"};
    std::vector<char*> argv;
    for (auto& s : store) argv.push_back(s.data());
    ClientOptions o;
    ::testing::internal::CaptureStderr();
    int rc = parse_client_options(3, argv.data(), o);
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 2);
    EXPECT_NE(err.find("power of two"), std::string::npos) << err;
    EXPECT_NE(err.find("zcperf --help"), std::string::npos) << err;
}

// Found by this test (now fixed): a WIDTH of 0 or below was silently replaced by the default 5 %, so
// "-I 99,0" ran as "-I 99,5" instead of being refused with exit code 2.
TEST(Cli, ConfidenceWidthZeroOrNegativeIsRefused) {
    EXPECT_EQ(parse({"-I", "99,0"}), 2);
    EXPECT_EQ(parse({"-I", "99,-3"}), 2);
}

// ---------------------------------------------------------------- helpers

TEST(CliCpuOption, Forms) {
    std::vector<int> l, r;
    parse_cpu_option("0,1", l, r);
    EXPECT_EQ(l, std::vector<int>{0});
    EXPECT_EQ(r, std::vector<int>{1});
    l.clear(), r.clear();
    parse_cpu_option("0+2,1+3", l, r);
    EXPECT_EQ(l, (std::vector<int>{0, 2}));
    EXPECT_EQ(r, (std::vector<int>{1, 3}));
    l.clear(), r.clear();
    parse_cpu_option("0-3", l, r);
    EXPECT_EQ(l, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_TRUE(r.empty());
    l.clear(), r.clear();
    parse_cpu_option(",1", l, r);
    EXPECT_TRUE(l.empty());
    EXPECT_EQ(r, std::vector<int>{1});
    l.clear(), r.clear();
    parse_cpu_option("0-1+4,2-3+6", l, r);
    EXPECT_EQ(l, (std::vector<int>{0, 1, 4}));
    EXPECT_EQ(r, (std::vector<int>{2, 3, 6}));
    l.clear(), r.clear();
    parse_cpu_option("2,", l, r);
    EXPECT_EQ(l, std::vector<int>{2});
    EXPECT_TRUE(r.empty());
}

TEST(CliCpuOption, Errors) {
    std::vector<int> l, r;
    EXPECT_THROW(parse_cpu_option("0,1,2", l, r), std::invalid_argument);
    EXPECT_THROW(parse_cpu_option("0+,1", l, r), std::invalid_argument);
    EXPECT_THROW(parse_cpu_option("a,1", l, r), std::invalid_argument);
    EXPECT_THROW(parse_cpu_option("0,b", l, r), std::invalid_argument);
    EXPECT_THROW(parse_cpu_option("3-1", l, r), std::invalid_argument);
    EXPECT_THROW(parse_cpu_option("0;1", l, r), std::invalid_argument);
    try {
        parse_cpu_option("0,1,2", l, r);
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'+'"), std::string::npos) << e.what();
    }
}

TEST(CliPair, Forms) {
    EXPECT_EQ(parse_pair("10,3", "-i"), (std::pair<double, double>{10, 3}));
    EXPECT_EQ(parse_pair("99,5", "-I"), (std::pair<double, double>{99, 5}));
    EXPECT_EQ(parse_pair("99.5,2.5", "-I"), (std::pair<double, double>{99.5, 2.5}));
    EXPECT_EQ(parse_pair("10", "-i"), (std::pair<double, double>{10, -1}));  // second missing: -1
}

TEST(CliPair, Errors) {
    for (const char* bad : {"", ",", "10,", ",3", "a,b", "1,2,3", "x"}) {
        EXPECT_THROW(parse_pair(bad, "-i"), std::invalid_argument) << "'" << bad << "'";
    }
    try {
        parse_pair("a,b", "-I");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("-I takes two numbers"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'a,b'"), std::string::npos) << e.what();
    }
}

// Found by this test (now fixed): std::stod parsed a numeric prefix and the rest was never checked, so
// "10,3x", "10abc" and "99%,5" were accepted (as 10,3 / 10 / 99,5) instead of being refused.
TEST(CliPair, TrailingGarbageIsRefused) {
    EXPECT_THROW(parse_pair("10,3x", "-i"), std::invalid_argument);
    EXPECT_THROW(parse_pair("10abc", "-i"), std::invalid_argument);
    EXPECT_THROW(parse_pair("99%,5", "-I"), std::invalid_argument);
}

// ---------------------------------------------------------------- expand_tests

TEST(ExpandTests, OrderIsTransportThenTestThenSize) {
    ClientOptions o;
    ASSERT_EQ(parse({"-t",    "maerts,stream", "-m",         "1M,64K,4M", "-P",         "2",  "-n",
                     "1G",    "--align",       "8K",         "-s",        "1M",         "-S", "2M",
                     "--cpu", ",3+4",          "--mem-node", ",1",        "--irq-cpus", ",5"},
                    o),
              -1);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 6u);
    const std::vector<std::pair<Workload, uint64_t>> want{{Workload::maerts, 1 << 20},  {Workload::maerts, 64 << 10},
                                                          {Workload::maerts, 4 << 20},  {Workload::stream, 1 << 20},
                                                          {Workload::stream, 64 << 10}, {Workload::stream, 4 << 20}};
    for (size_t i = 0; i < specs.size(); ++i) {
        EXPECT_EQ(specs[i].transport, transport_named("tcp"));
        EXPECT_EQ(specs[i].test, want[i].first) << i;
        EXPECT_EQ(specs[i].message_size, want[i].second) << i;
        EXPECT_EQ(specs[i].streams, 2);
        EXPECT_EQ(specs[i].total_bytes, 1ull << 30);
        EXPECT_EQ(specs[i].alignment, 8192u);
        EXPECT_EQ(specs[i].local.socket_buffer, 1u << 20);
        EXPECT_EQ(specs[i].remote.socket_buffer, 2u << 20);
        EXPECT_EQ(specs[i].remote.cpus, (std::vector<int>{3, 4}));
        EXPECT_TRUE(specs[i].local.cpus.empty());
        EXPECT_EQ(specs[i].remote.mem_node, 1);
        EXPECT_EQ(specs[i].local.mem_node, -1);
        EXPECT_EQ(specs[i].remote.irq_cpus, std::vector<int>{5});
    }
}

TEST(ExpandTests, TransportOuterThenReceiveModeThenTestThenSize) {
    ClientOptions o;
    ASSERT_EQ(parse({"-T", "tcp-msgzc,tcp", "--rx", "zerocopy,copy", "-t", "stream,maerts", "-m", "1,2", "-l", "3",
                     "--uring-fixed"},
                    o),
              -1);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 16u);
    for (size_t i = 0; i < specs.size(); ++i) {
        EXPECT_EQ(specs[i].transport, i < 8 ? transport_named("tcp-msgzc") : transport_named("tcp")) << i;
        EXPECT_EQ(specs[i].rx, (i / 4) % 2 == 0 ? RxMode::zerocopy : RxMode::copy) << i;
        EXPECT_EQ(specs[i].test, (i / 2) % 2 == 0 ? Workload::stream : Workload::maerts) << i;
        EXPECT_EQ(specs[i].message_size, i % 2 + 1) << i;
        EXPECT_DOUBLE_EQ(specs[i].duration_s, 3);
        EXPECT_TRUE(tcp_params(specs[i]).uring_fixed);
    }
}

TEST(ExpandTests, ReceiveLowWaterTravelsToBothHalves) {
    ClientOptions o;
    ASSERT_EQ(parse({"--rcvlowat", "64K", "-t", "stream,maerts"}, o), -1);
    EXPECT_EQ(tcp_params(o.params).rcv_lowat, 64u << 10);
    for (const TestSpec& s : expand_tests(o)) {
        EXPECT_EQ(rcv_lowat_of(s), 64u << 10);
        EXPECT_EQ(rcv_lowat_of(server_half(s)), 64u << 10);
        EXPECT_EQ(to_json(server_half(s))["rcv_lowat"], 64u << 10);
    }
    ClientOptions kernel;
    ASSERT_EQ(parse({"--rcvlowat", "1"}, kernel), -1);
    EXPECT_EQ(rcv_lowat_of(expand_tests(kernel).front()), 1u);
    // Not given: TCP's 256K goes on the wire, where an older server reads it as it always did.
    ClientOptions plain;
    ASSERT_EQ(parse({}, plain), -1);
    EXPECT_EQ(to_json(server_half(expand_tests(plain).front()))["rcv_lowat"], 256u << 10);
}

// MPTCP's receive low-water mark is its own kind's (mptcp/mptcp_params.hpp), by size, where --rcvlowat is not given;
// both halves carry it, and --rcvlowat still wins.
TEST(ExpandTests, MptcpChoosesItsOwnReceiveLowWaterMark) {
    ClientOptions o;
    ASSERT_EQ(parse({"-T", "mptcp,tcp", "-m", "64K,1M"}, o), -1);
    for (const TestSpec& s : expand_tests(o)) {
        const uint64_t want = s.transport == transport_named("mptcp") ? mptcp_rcv_lowat(s.message_size) : 256u << 10;
        EXPECT_EQ(rcv_lowat_of(side_half(s, s.local)), want) << transport_name(s.transport) << " " << s.message_size;
        EXPECT_EQ(to_json(server_half(s))["rcv_lowat"], want) << transport_name(s.transport) << " " << s.message_size;
    }
    EXPECT_NE(mptcp_rcv_lowat(1u << 20), 256u << 10);  // what it was, inherited from TCP, before it measured its own
    ClientOptions given;
    ASSERT_EQ(parse({"-T", "mptcp", "-m", "1M", "--rcvlowat", "128K"}, given), -1);
    EXPECT_EQ(to_json(server_half(expand_tests(given).front()))["rcv_lowat"], 128u << 10);
}

TEST(ExpandTests, ServerHalfCarriesTheRemoteSide) {
    ClientOptions o;
    o.local.cpus = {0};
    o.remote.cpus = {5, 6};
    o.remote.socket_buffer = 123456;
    o.remote.mem_node = 1;
    o.remote.irq_cpus = {8, 9};
    o.local.mem_node = 0;
    o.transports = {transport_named("tcp-uringzc")};
    o.rx_modes = {RxMode::splice};
    o.params.kind_params.set(kTcpParams).uring_fixed = true;
    HalfSpec s = server_half(expand_tests(o).front());
    EXPECT_EQ(s.transport, transport_named("tcp-uringzc"));
    EXPECT_EQ(s.rx, RxMode::splice);
    EXPECT_TRUE(tcp_params(s).uring_fixed);
    EXPECT_EQ(s.side.cpus, (std::vector<int>{5, 6}));
    EXPECT_EQ(s.side.socket_buffer, 123456u);
    EXPECT_EQ(s.side.mem_node, 1);  // the remote side's, not the local 0
    EXPECT_EQ(s.side.irq_cpus, (std::vector<int>{8, 9}));
    EXPECT_EQ(s.message_size, 1u << 20);
    EXPECT_EQ(server_role(Workload::stream), Role::recv);
    EXPECT_EQ(client_role(Workload::stream), Role::send);
    EXPECT_EQ(server_role(Workload::maerts), Role::send);
    EXPECT_EQ(client_role(Workload::maerts), Role::recv);
}

TEST(StreamShare, RemainderGoesToTheFirstStreams) {
    // 10 bytes over 3 streams: 4, 3, 3
    EXPECT_EQ(stream_share(10, 3, 0), 4u);
    EXPECT_EQ(stream_share(10, 3, 1), 3u);
    EXPECT_EQ(stream_share(10, 3, 2), 3u);
    uint64_t total = (1ull << 30) + 7, sum = 0;
    for (int i = 0; i < 8; ++i) sum += stream_share(total, 8, i);
    EXPECT_EQ(sum, total);
    EXPECT_EQ(stream_share(2, 4, 3), 0u);
}

// ---------------------------------------------------------------- option rows

// --list-options: a line per option (long, short, value kind, choices, default, help), tab-separated, for
// the man page and shell completion; hidden options stay out, --help and --version are in.
TEST(CliRows, ListOptionsGivesEveryOptionOnce) {
    std::vector<std::string> store{"zcperf", "--list-options"};
    std::vector<char*> argv;
    for (auto& s : store) argv.push_back(s.data());
    ClientOptions o;
    ::testing::internal::CaptureStdout();
    int rc = parse_client_options(2, argv.data(), o);
    std::string out = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, 0);
    std::map<std::string, std::vector<std::string>> by_name;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> f;
        std::istringstream cols(line);
        for (std::string c; std::getline(cols, c, '\t');) f.push_back(c);
        if (line.back() == '\t') f.emplace_back();
        ASSERT_EQ(f.size(), 6u) << line;
        EXPECT_TRUE(by_name.emplace(f[0], f).second) << "listed twice: " << f[0];
    }
    EXPECT_EQ(by_name["--streams"][1], "-P");
    EXPECT_EQ(by_name["--streams"][4], "1");
    // --gso-size's member is 0 when not given (the range refuses 0): its default is the path MTU's payload.
    EXPECT_EQ(by_name["--gso-size"][4], "path MTU payload");
    EXPECT_EQ(by_name["--rx"][3], "copy,zerocopy,splice,trunc,mmsg,gro");
    EXPECT_EQ(by_name["--test"][3], "stream,maerts,rr,msgrate,crr,cc");
    EXPECT_EQ(by_name["--output"][3], "human,csv,json");
    EXPECT_EQ(by_name["--uring-fixed"][2], "");  // a flag takes no value
    EXPECT_EQ(by_name["--auth-key-file"][2], "FILE");
    EXPECT_NE(by_name["--transport"][3].find("tcp-msgzc"), std::string::npos);
    EXPECT_EQ(by_name.count("--help"), 1u);
    EXPECT_EQ(by_name.count("--version"), 1u);
    EXPECT_EQ(by_name.count("--list-options"), 0u);  // hidden
    EXPECT_GE(by_name.size(), 40u);
    // Every listed choice is accepted as it is written.
    for (const char* opt : {"--test", "--rx", "--cq-mode", "--gpu-path", "--output"}) {
        for (const auto& choice : zc::split_commas(by_name[opt][3])) {
            std::vector<std::string> args{opt, choice};
            if (std::string(opt) == "--test" && choice == "msgrate") args.insert(args.end(), {"-m", "2"});
            if (std::string(opt) == "--rx" && (choice == "mmsg" || choice == "gro"))
                args.insert(args.end(), {"-T", "udp"});                                          // UDP's receive modes
            if (std::string(opt) == "--cq-mode") args.insert(args.end(), {"-T", "rdma-write"});  // an RDMA kind's
            EXPECT_NE(parse(args), 2) << opt << " " << choice;
        }
    }
}

// A number the server also receives is refused by zcperf exactly where the wire table refuses it.
TEST(CliRows, RangesAreTheWireTables) {
    auto p = wire_range(&TestParams::streams);
    EXPECT_EQ(parse({"-P", std::to_string(p.hi)}), -1);
    EXPECT_EQ(parse({"-P", std::to_string(p.hi + 1)}), 2);
    EXPECT_EQ(parse({"-P", std::to_string(p.lo - 1)}), 2);
    auto b = wire_range(&TestParams::batch);
    EXPECT_EQ(parse({"-t", "msgrate", "--batch", std::to_string(b.hi)}), -1);
    EXPECT_EQ(parse({"-t", "msgrate", "--batch", std::to_string(b.hi + 1)}), 2);
    auto t = wire_range(&RdmaOptions::tx_depth);
    EXPECT_EQ(parse({"-T", "rdma-write", "--tx-depth", std::to_string(t.hi)}), -1);  // a kind's row, its range
    EXPECT_EQ(parse({"-T", "rdma-write", "--tx-depth", std::to_string(t.lo - 1)}), 2);
    EXPECT_EQ(parse({"-T", "rdma-write", "--tx-depth", std::to_string(t.hi + 1)}), 2);
    auto m = wire_range(&TestParams::message_size);
    EXPECT_EQ(parse({"-m", std::to_string(m.hi)}), -1);
    EXPECT_EQ(parse({"-m", std::to_string(m.hi + 1)}), 2);
    auto r = wire_range(&TcpParams::rcv_lowat);
    EXPECT_EQ(parse({"--rcvlowat", std::to_string(r.hi + 1)}), 2);
    auto a = wire_range(&TestParams::alignment);
    EXPECT_EQ(parse({"--align", std::to_string(a.hi)}), -1);
    EXPECT_EQ(parse({"--align", std::to_string(a.hi * 2)}), 2);
}

TEST(CliRows, JsonStreamIsAnOutputAndExcludesDashO) {
    ClientOptions o;
    ASSERT_EQ(parse({"--json-stream"}, o), -1);
    EXPECT_EQ(o.output, "json-stream");
    EXPECT_EQ(parse({"--json-stream", "-o", "csv"}), 2);
}
