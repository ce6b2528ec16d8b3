// TCP_INFO as zcperf reads it: the kernel's layout restated in tcp_info.hpp against the
// uapi header, the shares of an interval from the sender's chronographs, the one line that says what
// limited a stream (fixture readings), and the socket settings read back on a loopback connection.
#include <gtest/gtest.h>
#include <linux/tcp.h>  // the kernel's struct tcp_info, only here: glibc's header lacks its later fields
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <string>
#include <thread>

#include "tcp/crr_close.hpp"
#include "tcp/tcp_stats.hpp"
#include "tcp/tcp_info.hpp"
#include "tcp/tcp_socket.hpp"
#include "tcp/tcp_tuning.hpp"

using namespace zc;

namespace {

#define ZC_SAME_OFFSET(ours, theirs) \
    EXPECT_EQ(offsetof(KernelTcpInfo, ours), offsetof(struct tcp_info, theirs)) << #ours

TEST(TcpInfoLayout, EveryFieldSitsWhereTheKernelPutsIt) {
    ZC_SAME_OFFSET(ca_state, tcpi_ca_state);
    ZC_SAME_OFFSET(rto, tcpi_rto);
    ZC_SAME_OFFSET(snd_mss, tcpi_snd_mss);
    ZC_SAME_OFFSET(lost, tcpi_lost);
    ZC_SAME_OFFSET(rtt, tcpi_rtt);
    ZC_SAME_OFFSET(rttvar, tcpi_rttvar);
    ZC_SAME_OFFSET(snd_ssthresh, tcpi_snd_ssthresh);
    ZC_SAME_OFFSET(snd_cwnd, tcpi_snd_cwnd);
    ZC_SAME_OFFSET(rcv_space, tcpi_rcv_space);
    ZC_SAME_OFFSET(total_retrans, tcpi_total_retrans);
    ZC_SAME_OFFSET(pacing_rate, tcpi_pacing_rate);
    ZC_SAME_OFFSET(max_pacing_rate, tcpi_max_pacing_rate);
    ZC_SAME_OFFSET(bytes_acked, tcpi_bytes_acked);
    ZC_SAME_OFFSET(bytes_received, tcpi_bytes_received);
    ZC_SAME_OFFSET(min_rtt, tcpi_min_rtt);
    ZC_SAME_OFFSET(data_segs_out, tcpi_data_segs_out);
    ZC_SAME_OFFSET(delivery_rate, tcpi_delivery_rate);
    ZC_SAME_OFFSET(busy_time, tcpi_busy_time);
    ZC_SAME_OFFSET(rwnd_limited, tcpi_rwnd_limited);
    ZC_SAME_OFFSET(sndbuf_limited, tcpi_sndbuf_limited);
    ZC_SAME_OFFSET(delivered, tcpi_delivered);
    ZC_SAME_OFFSET(bytes_sent, tcpi_bytes_sent);
    ZC_SAME_OFFSET(bytes_retrans, tcpi_bytes_retrans);
    ZC_SAME_OFFSET(rcv_ooopack, tcpi_rcv_ooopack);
    ZC_SAME_OFFSET(snd_wnd, tcpi_snd_wnd);
    EXPECT_LE(sizeof(KernelTcpInfo), sizeof(struct tcp_info));
}

TEST(TcpInfoLayout, AnOlderKernelsShortReadLeavesTheLaterFieldsZero) {
    KernelTcpInfo k{};
    k.rtt = 120;
    k.busy_time = 5'000'000;
    k.bytes_sent = 77;
    // A 4.9 kernel stops before the chronographs (they came in 4.10).
    TcpInfo t = tcp_info_from_kernel(k, offsetof(KernelTcpInfo, busy_time));
    EXPECT_TRUE(t.valid);
    EXPECT_EQ(t.rtt_us, 120u);
    EXPECT_FALSE(t.has_chrono);
    EXPECT_EQ(t.busy_us, 0u);
    EXPECT_EQ(t.bytes_sent, 0u);
    EXPECT_FALSE(tcp_info_from_kernel(k, 20).valid);  // too short to report anything
    TcpInfo full = tcp_info_from_kernel(k, sizeof(k));
    EXPECT_TRUE(full.has_chrono);
    EXPECT_EQ(full.busy_us, 5'000'000u);
    EXPECT_EQ(full.bytes_sent, 77u);
}

TcpInfo reading(uint64_t busy, uint64_t rwnd, uint64_t sndbuf, uint32_t retrans = 0, uint64_t sent = 1 << 20) {
    TcpInfo t;
    t.valid = t.has_chrono = true;
    t.busy_us = busy;
    t.rwnd_limited_us = rwnd;
    t.sndbuf_limited_us = sndbuf;
    t.total_retrans = retrans;
    t.bytes_sent = sent;
    return t;
}

TEST(TcpSample, SharesAreOfTheIntervalFromTheDifferenceOfTwoReadings) {
    TcpInfo a = reading(1'000'000, 100'000, 0, 3, 1000);
    TcpInfo b = reading(1'900'000, 730'000, 0, 15, 9000);
    TcpSample l = tcp_sample(a, b, 1.0);
    EXPECT_NEAR(l.busy, 0.9, 1e-9);
    EXPECT_NEAR(l.rwnd_limited, 0.63, 1e-9);
    EXPECT_EQ(l.sndbuf_limited, 0);
    EXPECT_EQ(l.retransmits, 12u);
    EXPECT_EQ(l.bytes_sent, 8000u);
    EXPECT_EQ(tcp_limit_line(l).rfind("rwnd-limited 63 % of the time", 0), 0u) << tcp_limit_line(l);
    EXPECT_NE(tcp_limit_line(l).find("12 segments retransmitted"), std::string::npos);
}

TEST(TcpSample, EachLimitIsNamedWhenItDominates) {
    TcpInfo zero = reading(0, 0, 0, 0, 0);
    EXPECT_EQ(tcp_limit_line(tcp_sample(zero, reading(2'000'000, 0, 1'260'000), 2.0)).rfind("sndbuf-limited 63 %", 0),
              0u);
    EXPECT_EQ(tcp_limit_line(tcp_sample(zero, reading(990'000, 10'000, 0), 1.0)).rfind("sending 98 % of the time", 0),
              0u);
    EXPECT_EQ(tcp_limit_line(tcp_sample(zero, reading(200'000, 0, 0), 1.0)).rfind("application-limited 80 %", 0), 0u);
}

TEST(TcpSample, NothingToJudgeGivesNoLine) {
    TcpInfo zero = reading(0, 0, 0, 0, 0);
    EXPECT_EQ(tcp_limit_line(tcp_sample(zero, zero, 1.0)), "");  // a receive-only socket sent nothing
    TcpInfo old = reading(1000, 0, 0);
    old.has_chrono = false;  // a kernel before 4.10
    EXPECT_EQ(tcp_limit_line(tcp_sample(zero, old, 1.0)), "");
    EXPECT_EQ(tcp_limit_line(tcp_sample(zero, reading(1000, 0, 0), 0)), "");
}

TEST(TcpSample, CountersThatWentBackwardsCountAsNoChangeAndSharesStayInRange) {
    TcpSample l = tcp_sample(reading(5'000'000, 0, 0, 9), reading(1'000'000, 3'000'000, 0, 2), 1.0);
    EXPECT_EQ(l.busy, 0);
    EXPECT_EQ(l.rwnd_limited, 0);
    EXPECT_EQ(l.retransmits, 0u);
    l = tcp_sample(reading(0, 0, 0), reading(3'000'000, 2'500'000, 2'000'000), 1.0);  // jiffy rounding over 1
    EXPECT_LE(l.busy, 1.0);
    EXPECT_LE(l.rwnd_limited + l.sndbuf_limited, l.busy + 1e-12);
}

TEST(CongestionControl, AnUnknownAlgorithmListsTheAvailableOnes) {
    auto avail = available_congestion_controls(std::string(ZCPERF_FIXTURES) + "/proc/tcp_available_congestion_control");
    ASSERT_EQ(avail, (std::vector<std::string>{"reno", "cubic", "bbr"}));
    std::string why = congestion_problem("vegas", ENOENT, avail);
    EXPECT_NE(why.find("'vegas' is not available"), std::string::npos) << why;
    EXPECT_NE(why.find("available: reno cubic bbr"), std::string::npos) << why;
    EXPECT_NE(congestion_problem("bbr", EPERM, avail).find("tcp_allowed_congestion_control"), std::string::npos);
}

TEST(CrrClose, NamesRoundTripAndABadOneSaysBoth) {
    for (CrrClose c : {CrrClose::rst, CrrClose::fin}) EXPECT_EQ(crr_close_from_name(crr_close_name(c)), c);
    try {
        crr_close_from_name("reset");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("rst"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("fin"), std::string::npos);
    }
}

// A loopback connection: TCP_INFO is read, and each setting reads back as set.
struct Loopback {
    UniqueFd listener, client, server;
    explicit Loopback(const TcpTuning& t = {}) {
        auto [l, port] = listen_tcp("127.0.0.1", 0, 4);
        listener = std::move(l);
        client = connect_tcp(Endpoint{"127.0.0.1", port}, std::chrono::seconds(2), 0, t);
        server.reset(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    }
};

TEST(TcpInfoLoopback, AConnectionThatMovedDataHasRttCwndAndBytes) {
    Loopback lo;
    ASSERT_TRUE(lo.server);
    std::string data(1 << 20, 'x');
    std::thread reader([&] {
        std::string in(1 << 20, 0);
        size_t got = 0;
        while (got < in.size()) {
            ssize_t r = ::recv(lo.server.get(), in.data() + got, in.size() - got, 0);
            if (r <= 0) break;
            got += static_cast<size_t>(r);
        }
    });
    for (size_t done = 0; done < data.size();) {
        ssize_t r = ::send(lo.client.get(), data.data() + done, data.size() - done, 0);
        ASSERT_GT(r, 0);
        done += static_cast<size_t>(r);
    }
    reader.join();
    TcpInfo t = read_tcp_info(lo.client.get());
    ASSERT_TRUE(t.valid);
    EXPECT_GT(t.rtt_us, 0u);
    EXPECT_GT(t.snd_cwnd, 0u);
    EXPECT_GT(t.snd_mss, 0u);
    EXPECT_TRUE(t.has_chrono);
    EXPECT_GE(t.bytes_sent, data.size());
    EXPECT_GE(t.bytes_acked, data.size());
    EXPECT_GE(read_tcp_info(lo.server.get()).bytes_received, data.size());
    EXPECT_FALSE(read_tcp_info(-1).valid);
}

TEST(TcpTuningLoopback, EachSettingReadsBack) {
    TcpTuning t;
    t.congestion = "reno";  // always built in, always allowed
    t.max_pacing_Bps = 125'000'000;
    t.tos = 0x10;
    Loopback lo(t);
    TcpTuningInForce in = read_tcp_tuning(lo.client.get());
    EXPECT_EQ(in.congestion, "reno");
    EXPECT_EQ(in.max_pacing_Bps, 125'000'000u);
    EXPECT_EQ(in.tos, 0x10);
    EXPECT_EQ(in.bind_dev, "");
    TcpTuningInForce plain = read_tcp_tuning(lo.server.get());
    EXPECT_EQ(plain.max_pacing_Bps, 0u);  // unlimited reads as 0
    EXPECT_FALSE(plain.congestion.empty());
}

TEST(TcpTuningLoopback, AnUnknownAlgorithmOrDeviceIsAClearError) {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM, 0));
    TcpTuning cc;
    cc.congestion = "no-such-cc";
    try {
        apply_tcp_tuning(fd.get(), cc);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("available:"), std::string::npos) << e.what();
    }
    TcpTuning dev;
    dev.bind_dev = "nosuchif0";
    try {
        apply_tcp_tuning(fd.get(), dev);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("--bind-dev nosuchif0"), std::string::npos) << e.what();
    }
}

}  // namespace
