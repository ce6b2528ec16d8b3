// --flows: the fairness figures, the per-flow count check, the open-file limit's
// plan (fixture limits) and its raise (in a child whose soft limit is lowered), the capability rules,
// and the epoll stream loops over socketpairs: every flow's bytes equal on both ends.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tcp/flow_stats.hpp"
#include "core/stream_counters.hpp"
#include "parse_cli.hpp"
#include "kind/spec_rules.hpp"
#include "protocol/messages.hpp"
#include "protocol/result.hpp"
#include "run_driver.hpp"
#include "system/fd_limit.hpp"
#include "tcp/tcp_flows.hpp"
#include "tcp/tcp_params.hpp"

using namespace zc;

namespace {

TEST(FlowStats, MinMedianMaxAndJainsIndex) {
    FlowStats even = flow_stats({100, 100, 100, 100});
    EXPECT_DOUBLE_EQ(even.jain, 1.0);
    EXPECT_EQ(even.median_bytes, 100u);
    FlowStats one = flow_stats({0, 0, 0, 400});
    EXPECT_DOUBLE_EQ(one.jain, 0.25);  // 1/n: one flow took everything
    EXPECT_EQ(one.min_bytes, 0u);
    EXPECT_EQ(one.max_bytes, 400u);
    EXPECT_EQ(one.median_bytes, 0u);
    FlowStats odd = flow_stats({5, 1, 3});
    EXPECT_EQ(odd.median_bytes, 3u);
    EXPECT_NEAR(odd.jain, 81.0 / (3 * 35), 1e-12);
    EXPECT_EQ(flow_stats({10, 20}).median_bytes, 15u);
    EXPECT_EQ(flow_stats({}).jain, 0);
    EXPECT_EQ(flow_stats({0, 0}).jain, 0);
    EXPECT_EQ(flow_stats({~0ull - 1, ~0ull}).median_bytes, ~0ull - 1);  // no overflow in the mean of two
}

TEST(FlowStats, TheSidesCountsAreComparedAsAMultiset) {
    EXPECT_EQ(flow_count_problem({}, {}), "");
    EXPECT_EQ(flow_count_problem({1, 2, 3}, {3, 1, 2}), "");  // grouped into threads differently: the same flows
    std::string why = flow_count_problem({1, 2, 3}, {1, 2, 4});
    EXPECT_NE(why.find("1 of 3 flows"), std::string::npos) << why;
    EXPECT_NE(flow_count_problem({1, 2}, {1, 2, 0}).find("sender reports 2 flows, the receiver 3"), std::string::npos);
}

TEST(FlowStats, RatesAreEachFlowsBytesOverTheSidesInterval) {
    FlowFigures f = flow_figures({250'000, 500'000, 1'000'000}, 2, 0);
    EXPECT_EQ(f.flows.flows, 3u);
    EXPECT_DOUBLE_EQ(f.min_bps, 1e6);
    EXPECT_DOUBLE_EQ(f.median_bps, 2e6);
    EXPECT_DOUBLE_EQ(f.max_bps, 4e6);
    EXPECT_EQ(f.transaction_bytes, 0u);
    EXPECT_EQ(flow_figures({}, 2, 0).flows.flows, 0u);
    EXPECT_EQ(flow_figures({1}, 0, 64).transaction_bytes, 64u);  // rr: the line's transactions per second
    EXPECT_EQ(flow_figures({1}, 0, 64).max_bps, 0);              // no interval: no rate
}

TEST(FdLimit, ThePlanRaisesTheSoftLimitUpToTheHardOne) {
    EXPECT_EQ(plan_fd_limit(1000, 1024, 4096).raise_to, 0u);  // enough already
    EXPECT_TRUE(plan_fd_limit(1000, 1024, 4096).error.empty());
    EXPECT_EQ(plan_fd_limit(2100, 1024, 524288).raise_to, 2100u);  // systemd's defaults
    FdLimitPlan over = plan_fd_limit(5000, 1024, 4096);
    EXPECT_EQ(over.raise_to, 0u);
    EXPECT_NE(over.error.find("hard limit (4096, RLIMIT_NOFILE)"), std::string::npos) << over.error;
    EXPECT_NE(over.error.find("LimitNOFILE="), std::string::npos) << over.error;
    EXPECT_EQ(plan_fd_limit(1u << 30, RLIM_INFINITY, RLIM_INFINITY).raise_to, 0u);
}

// In a child (the limit is the process's): soft lowered to 256, then a need of 1000 is met by a raise
// that is said, and a need over the hard limit is the error that names it.
TEST(FdLimit, AChildWithALowSoftLimitIsRaisedAndBeyondTheHardOneRefused) {
    rlimit r{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &r), 0);
    if (r.rlim_max != RLIM_INFINITY && r.rlim_max < 2048) GTEST_SKIP() << "hard limit " << r.rlim_max;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit low{256, std::min<rlim_t>(r.rlim_max, 2048)};
        if (setrlimit(RLIMIT_NOFILE, &low) != 0) _exit(10);
        std::string said = ensure_fd_limit(1000, "--flows 500 x -P 2");
        rlimit now{};
        getrlimit(RLIMIT_NOFILE, &now);
        if (said.find("from 256 to") == std::string::npos || now.rlim_cur < 1000 + kFdMargin) _exit(11);
        if (!ensure_fd_limit(10, "a few").empty()) _exit(12);  // enough now: nothing to say
        try {
            ensure_fd_limit(4096, "--flows 2048 x -P 2");
            _exit(13);
        } catch (const std::runtime_error& e) {
            std::string what = e.what();
            if (what.find("--flows 2048 x -P 2 needs about") != 0 || what.find("hard limit (2048") == std::string::npos)
                _exit(14);
        }
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit, 11: not raised or not said, 12: said twice, "
                                         "13: no error beyond the hard limit, 14: the error's words";
}

TEST(FlowRules, FlowsRunOverTcpCopiesForStreamMaertsAndRr) {
    TestSpec s;
    s.kind_params.set(kTcpParams).flows = 100;
    for (Workload t : {Workload::stream, Workload::maerts, Workload::rr}) {
        s.test = t;
        s.message_size = t == Workload::rr ? 1 : 1 << 16;
        EXPECT_EQ(spec_problem(s), "") << workload_name(t);
    }
    s.test = Workload::msgrate;
    EXPECT_NE(spec_problem(s).find("--flows runs stream, maerts and rr"), std::string::npos) << spec_problem(s);
    s.test = Workload::stream;
    for (const char* t : {"tcp-sendfile", "udp"}) {
        s.transport = transport_from_name(t);
        std::string why = spec_problem(s);
        EXPECT_NE(why.find("--flows serves many connections per thread"), std::string::npos) << t << ": " << why;
        EXPECT_NE(why.find("-T tcp, not"), std::string::npos) << why;
    }
    s.transport = transport_named("tcp");
    s.rx = RxMode::zerocopy;
    EXPECT_NE(spec_problem(s).find("--rx copy"), std::string::npos) << spec_problem(s);
    s.rx = RxMode::copy;
    s.bitrate = 1'000'000;
    EXPECT_NE(spec_problem(s).find("-b paces"), std::string::npos) << spec_problem(s);
}

TEST(FlowRules, TheCommandLineTakesFlowsInItsRange) {
    ClientOptions o;
    EXPECT_EQ(test::parse({"--flows", "500", "-P", "2"}, o), -1);  // -1: go on
    EXPECT_EQ(tcp_params(o.params).flows, 500);
    EXPECT_EQ(data_connections(o.params), 1000u);
    EXPECT_EQ(test::parse({"--flows", "0"}), 2);
    EXPECT_EQ(test::parse({"--flows", "65537"}), 2);
    EXPECT_EQ(test::parse({"--flows", "65536", "-P", "2"}), 2);  // over kMaxDataConnections
    EXPECT_EQ(test::parse({"--flows", "4", "-T", "udp"}), 2);    // the capability rules, at parse time
}

TEST(FlowRules, AServerThatPredatesFlowsIsRefusedBeforeTheSetup) {
    TestParams p;
    Welcome old;
    old.software = "zcserver 0.0.9";
    old.features = {kFeatureIntervals, kFeatureExplain};
    EXPECT_EQ(flows_support_problem(p, old), "");  // one connection per stream: any server
    p.kind_params.set(kTcpParams).flows = 10;
    std::string why = flows_support_problem(p, old);
    EXPECT_NE(why.find("the server (zcserver 0.0.9) predates --flows"), std::string::npos) << why;
    Welcome now;
    now.features = server_features();
    EXPECT_EQ(flows_support_problem(p, now), "");
}

// Sets of non-blocking socketpairs, `threads` epoll loops each way: every flow's count is the same on
// both ends, and the receivers see every flow's end.
TEST(FlowLoops, StreamFlowsOverTwoThreadsMoveTheSameBytesPerFlow) {
    constexpr int kFlows = 200, kThreads = 2;
    std::vector<UniqueFd> tx, rx;
    for (int i = 0; i < kFlows; ++i) {
        int sv[2];
        ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        tx.emplace_back(sv[0]);
        rx.emplace_back(sv[1]);
    }
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.deadline_ns = monotonic_ns() + 300'000'000;
    std::vector<std::vector<uint64_t>> sent(kThreads), got(kThreads);
    std::vector<StreamCounters> sc(kThreads), rc(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        std::vector<int> mine_tx, mine_rx;
        for (int i = t; i < kFlows; i += kThreads) {
            mine_tx.push_back(tx[i].get());
            mine_rx.push_back(rx[i].get());
        }
        threads.emplace_back([&, t, mine_tx] {
            TcpFlowsSender s(mine_tx, 16 << 10, 4096);
            sc[t] = s.run(stop);
            sent[t] = s.flow_bytes();
        });
        threads.emplace_back([&, t, mine_rx] {
            TcpFlowsReceiver r(mine_rx, 64 << 10, 4096);
            rc[t] = r.run(stop);
            got[t] = r.flow_bytes();
        });
    }
    for (auto& th : threads) th.join();
    std::vector<uint64_t> all;
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(sc[t].error, 0) << sc[t].failed_call;
        EXPECT_EQ(rc[t].error, 0) << rc[t].failed_call;
        EXPECT_EQ(sent[t], got[t]) << "thread " << t;  // every flow, byte for byte
        EXPECT_EQ(sc[t].bytes, rc[t].bytes);
        EXPECT_GT(sc[t].bytes, 0u);
        all.insert(all.end(), got[t].begin(), got[t].end());
    }
    FlowStats f = flow_stats(all);
    EXPECT_EQ(f.flows, static_cast<size_t>(kFlows));
    EXPECT_GT(f.min_bytes, 0u);  // every flow got a turn
    EXPECT_GT(f.jain, 0.0);
}

TEST(FlowLoops, AByteBudgetStopsTheSenderExactly) {
    std::vector<UniqueFd> tx, rx;
    std::vector<int> t_fds, r_fds;
    for (int i = 0; i < 8; ++i) {
        int sv[2];
        ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        tx.emplace_back(sv[0]);
        rx.emplace_back(sv[1]);
        t_fds.push_back(sv[0]);
        r_fds.push_back(sv[1]);
    }
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.deadline_ns = monotonic_ns() + 5'000'000'000;
    stop.byte_budget = 3'000'001;
    StreamCounters sent, got;
    std::thread receiver([&] {
        TcpFlowsReceiver r(r_fds, 1 << 16, 4096);
        got = r.run(stop);
    });
    TcpFlowsSender s(t_fds, 1 << 16, 4096);
    sent = s.run(stop);
    receiver.join();
    EXPECT_EQ(sent.bytes, 3'000'001u);
    EXPECT_EQ(got.bytes, 3'000'001u);
}

}  // namespace
