// UDP's pure pieces (sequence accounting, pacing schedule, size limits, /proc/net/snmp) and its loops
// over a loopback socket pair in one process: exact counts, losses when the receiver is starved, the
// end marker, GSO segments each carrying their header, GRO's coalesced buffers, MSG_ZEROCOPY's
// completions, rr with a lost request.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>

#include "core/pacer.hpp"
#include "udp/seq_accountant.hpp"
#include "udp/udp_receiver.hpp"
#include "udp/udp_rr.hpp"
#include "udp/udp_sender.hpp"
#include "udp/udp_setup.hpp"
#include "udp/udp_socket.hpp"
#include "udp/udp_wire.hpp"

using namespace zc;

namespace {
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(SeqAccountant, InOrderIsExact) {
    SeqAccountant a;
    for (uint64_t s = 0; s < 10000; ++s) a.datagram(s, 1000 * s, 1000 * s + 50);
    a.sender_total(10000);
    UdpCounts u;
    a.fill(u);
    EXPECT_EQ(u.datagrams, 10000u);
    EXPECT_EQ(u.lost, 0u);
    EXPECT_EQ(u.reordered, 0u);
    EXPECT_EQ(u.duplicates, 0u);
    EXPECT_EQ(u.jitter_s, 0.0);  // constant transit: no jitter
    EXPECT_TRUE(u.end_marker);
}

TEST(SeqAccountant, GapsReorderingDuplicatesAndTailLoss) {
    SeqAccountant a;
    for (uint64_t s : {0, 1, 3, 2, 2, 6, 7, 7, 4}) a.datagram(s, 0, 0);
    // 5 never came; 2 and 4 came late (reordered, no longer lost); 2 and 7 twice (duplicates).
    EXPECT_EQ(a.received(), 7u);
    EXPECT_EQ(a.lost(), 1u);  // the gap at 5
    a.sender_total(10);       // 8 and 9 were sent too: the tail the gaps cannot see
    UdpCounts u;
    a.fill(u);
    EXPECT_EQ(u.lost, 3u);
    EXPECT_EQ(u.reordered, 2u);
    EXPECT_EQ(u.duplicates, 2u);
    EXPECT_EQ(u.sender_datagrams, 10u);
}

TEST(SeqAccountant, JumpPastTheWindowForgetsOldNumbers) {
    SeqAccountant a;
    a.datagram(0, 0, 0);
    a.datagram(SeqAccountant::kWindow * 3, 0, 0);  // a burst lost: 3 windows
    EXPECT_EQ(a.lost(), SeqAccountant::kWindow * 3 - 1);
    a.datagram(SeqAccountant::kWindow * 3 - 1, 0, 0);  // late, inside the window: reordered, not a duplicate
    UdpCounts u;
    a.fill(u);
    EXPECT_EQ(u.reordered, 1u);
    EXPECT_EQ(u.duplicates, 0u);
    EXPECT_EQ(u.lost, SeqAccountant::kWindow * 3 - 2);
}

TEST(SeqAccountant, GapsAcrossWordsForgetOnlyTheSkippedNumbers) {
    // The window is a ring of 64-bit words: a gap is cleared a word at a time, so check gaps that start and
    // end inside words, span whole words, and reuse bits numbers a window ago had set.
    SeqAccountant a;
    const uint64_t w = SeqAccountant::kWindow;
    for (uint64_t s = 0; s < w + 10; ++s) a.datagram(s, 0, 0);  // every bit set once, the first 10 twice
    a.datagram(w + 200, 0, 0);                                  // skips w+10 .. w+199: 190 numbers, 3+ words
    EXPECT_EQ(a.lost(), 190u);
    for (uint64_t s = w + 10; s < w + 200; s += 2) a.datagram(s, 0, 0);  // half of them late: reordered
    a.datagram(w + 5, 0, 0);                                             // seen before the gap: a duplicate
    a.datagram(w + 198, 0, 0);                                           // came late already: a duplicate
    a.datagram(w + 200, 0, 0);                                           // the gap's end: a duplicate
    UdpCounts u;
    a.fill(u);
    EXPECT_EQ(u.reordered, 95u);
    EXPECT_EQ(u.lost, 95u);
    EXPECT_EQ(u.duplicates, 3u);
    EXPECT_EQ(u.datagrams, w + 10 + 1 + 95);
    // The other half, late too: none was marked seen by the bits their numbers a window ago left.
    for (uint64_t s = w + 11; s < w + 200; s += 2) a.datagram(s, 0, 0);
    a.fill(u);
    EXPECT_EQ(u.duplicates, 3u);
    EXPECT_EQ(u.lost, 0u);
    EXPECT_EQ(u.reordered, 190u);
}

TEST(SeqAccountant, JitterFollowsRfc3550) {
    SeqAccountant a;
    // Transit alternates 100 and 300 ns: |D| = 200 each time, J converges to 200 ns by J += (|D|-J)/16.
    double j = 0;
    for (uint64_t s = 0; s < 200; ++s) {
        a.datagram(s, 0, s % 2 ? 300 : 100);
        if (s > 0) j += (200.0 - j) / 16.0;
    }
    EXPECT_NEAR(a.jitter_s(), j * 1e-9, 1e-15);
    EXPECT_NEAR(a.jitter_s(), 200e-9, 1e-9);
}

TEST(Pacer, ScheduleIsExactAndUnpacedNeverWaits) {
    Pacer p(8000000);  // 1 MB/s
    p.start(1000);
    EXPECT_EQ(p.due_ns(0), 1000);
    EXPECT_EQ(p.due_ns(1000000), 1000 + 1000000000);  // a megabyte a second later
    EXPECT_EQ(p.due_ns(1500), 1000 + 1500000);
    Pacer big(100000000000ull);  // 100 Gbit/s over 2^40 bytes: no overflow
    EXPECT_EQ(big.due_ns(1ull << 40), static_cast<int64_t>((1ull << 40) * 8 / 100));
    Pacer none;
    EXPECT_FALSE(none.paced());
    EXPECT_EQ(none.wait(1ull << 40), 0);
}

TEST(Pacer, WaitKeepsTheRate) {
    Pacer p(8 * 1000 * 1000);  // 1 MB/s: 100 KB in 100 ms
    int64_t t0 = monotonic_ns();
    p.start(t0);
    uint64_t sent = 0;
    for (int i = 0; i < 100; ++i) {
        p.wait(sent);
        sent += 1000;
    }
    double s = (monotonic_ns() - t0) / 1e9;
    EXPECT_GE(s, 0.099 - 0.001);  // the 100th call is due at 99 ms
    EXPECT_LT(s, 0.5);
}

TEST(Pacer, BitrateParsingAndItsLimits) {
    EXPECT_EQ(parse_bitrate("100M"), 100000000u);
    EXPECT_EQ(parse_bitrate("2.5G"), 2500000000u);
    EXPECT_EQ(parse_bitrate("1k"), 1000u);
    EXPECT_EQ(parse_bitrate("64000"), 64000u);
    for (const char* bad : {"", "fast", "10X", "1e30", "-5M"})
        EXPECT_THROW(parse_bitrate(bad), std::invalid_argument) << bad;
    try {
        parse_bitrate("999");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(has(e.what(), "1 kbit/s")) << e.what();
    }
    EXPECT_EQ(bitrate_text(2500000000), "2.5 Gbit/s");
}

TEST(UdpLimits, SizesNameTheirLimit) {
    EXPECT_EQ(udp_size_problem(1472, 0, 0, true), "");
    EXPECT_EQ(udp_size_problem(65507, 0, 0, true), "");
    EXPECT_TRUE(has(udp_size_problem(65508, 0, 0, true), "65507")) << udp_size_problem(65508, 0, 0, true);
    EXPECT_TRUE(has(udp_size_problem(8, 0, 0, true), "16-byte sequence header"));
    EXPECT_EQ(udp_size_problem(1, 0, 0, false), "");           // rr: any size
    EXPECT_EQ(udp_size_problem(64768, 1472, 1472, true), "");  // 44 segments
    EXPECT_TRUE(has(udp_size_problem(65000, 1500, 1472, true), "over the path's largest segment payload, 1472"));
    std::string many = udp_size_problem(65000, 1000, 1472, true);  // 65 segments
    EXPECT_TRUE(has(many, "65 segments")) << many;
    EXPECT_TRUE(has(many, "UDP_MAX_SEGMENTS")) << many;
    EXPECT_EQ(segments_per_call(65000, 1000), 65u);
}

TEST(UdpSnmp, ParsesTheUdpLines) {
    const std::string text =
        "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
        "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
        "Udp: 1000 3 17 2000 15 2 0 0 0\n"
        "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti\n"
        "UdpLite: 9 9 9 9 9 9 9 9\n";
    UdpSnmp s = parse_udp_snmp(text);
    EXPECT_TRUE(s.valid);
    EXPECT_EQ(s.in_datagrams, 1000u);
    EXPECT_EQ(s.in_errors, 17u);
    EXPECT_EQ(s.rcvbuf_errors, 15u);
    EXPECT_EQ(s.sndbuf_errors, 2u);
    EXPECT_FALSE(parse_udp_snmp("Ip: a\nIp: 1\n").valid);
    EXPECT_TRUE(read_udp_snmp().valid);  // this machine's
}

namespace {
// Two connected UDP sockets on loopback, set up as zcserver and zcperf do (hello, token, answer).
struct UdpPair {
    UniqueFd tx, rx;
    explicit UdpPair(uint64_t rcvbuf = 0) {
        UdpListener l("127.0.0.1", rcvbuf);
        std::atomic<bool> stopped{false};
        std::vector<UniqueFd> server;
        std::thread t(
            [&] { server = l.accept(1, 42, std::chrono::steady_clock::now() + std::chrono::seconds(5), stopped); });
        auto client = connect_udp_streams("127.0.0.1", l.port(), 1, 42, std::chrono::seconds(5), 0);
        t.join();
        if (server.size() != 1) throw std::runtime_error("no UDP stream accepted");
        tx = std::move(client[0]);
        rx = std::move(server[0]);
    }
};

StopRule timed(double s, const std::atomic<bool>& abort) {
    StopRule r;
    r.abort = &abort;
    r.deadline_ns = monotonic_ns() + static_cast<int64_t>(s * 1e9);
    return r;
}

// A loop's run: the counts every loop returns and UDP's own, read from the loop after it ran (as the
// kind's block reads them).
struct Ran : StreamCounters {
    UdpCounts udp;
};
template <class Loop>
Ran ran(Loop& loop, const StopRule& stop) {
    Ran out{loop.run(stop), {}};
    out.udp = loop.udp_counts();
    return out;
}

std::pair<Ran, Ran> run_pair(UdpPair& p, const UdpSendOptions& so, const UdpRecvOptions& ro, double seconds,
                             uint64_t budget = 0) {
    std::atomic<bool> abort{false};
    UdpSender s(p.tx.get(), so);
    UdpReceiver r(p.rx.get(), ro);
    StopRule stop = timed(seconds, abort);
    stop.byte_budget = budget;
    StopRule send_stop = stop;  // -b paces the sender's loop alone, as SideRunner sets it
    send_stop.pacer = Pacer(so.bitrate);
    send_stop.pacer.start(monotonic_ns());
    Ran rc;
    std::thread t([&] { rc = ran(r, stop); });
    Ran sc = ran(s, send_stop);
    send_stop.add_pacing(sc);
    t.join();
    return {sc, rc};
}
}  // namespace

TEST(UdpLoops, WrongTokenIsNotAccepted) {
    UdpListener l("127.0.0.1", 0);
    std::atomic<bool> stopped{false};
    std::vector<UniqueFd> server;
    std::thread t(
        [&] { server = l.accept(1, 42, std::chrono::steady_clock::now() + std::chrono::milliseconds(500), stopped); });
    try {
        connect_udp_streams("127.0.0.1", l.port(), 1, 7, std::chrono::milliseconds(300), 0);
        FAIL() << "a wrong token was answered";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(has(e.what(), "no answer from UDP port")) << e.what();
    }
    t.join();
    EXPECT_TRUE(server.empty());
}

// The exact-count tests give the receiver 4 MiB of socket buffer (net.core.rmem_max here): on a loaded
// host its thread may not run for tens of milliseconds, and the default 208 KiB would overflow.
constexpr uint64_t kRoomy = 4 << 20;

TEST(UdpLoops, PacedCopyStreamIsExact) {
    UdpPair p(kRoomy);
    UdpSendOptions so;
    so.bytes_per_call = 1000;
    so.bitrate = 80000000;  // 10 MB/s: far below what loopback drops at
    auto [s, r] = run_pair(p, so, {}, 0.3);
    ASSERT_EQ(s.error, 0) << s.failed_call;
    ASSERT_EQ(r.error, 0) << r.failed_call;
    EXPECT_EQ(s.pacing.method, PacingMethod::sender_clock);  // lo's qdisc is noqueue
    EXPECT_GT(s.pacing.sleep_ns, 0u);
    // 0.3 s at 10 MB/s is 3 MB: pacing never goes much over it; a loaded host (CI's) may keep the sender
    // off its CPU for part of the 0.3 s (2.62 MB seen), so the floor only says it ran at a real rate.
    EXPECT_LE(static_cast<double>(s.bytes), 3.3e6);
    EXPECT_GE(static_cast<double>(s.bytes), 1.5e6);
    EXPECT_EQ(r.bytes, s.bytes);
    EXPECT_EQ(r.udp.datagrams, s.udp.datagrams);
    EXPECT_EQ(r.udp.sender_datagrams, s.udp.datagrams);
    EXPECT_TRUE(r.udp.end_marker);
    EXPECT_EQ(r.udp.lost, 0u);
    EXPECT_EQ(r.udp.kernel_drops, 0u);
}

TEST(UdpLoops, ByteBudgetWithBatchesAndRecvmmsg) {
    UdpPair p(kRoomy);
    UdpSendOptions so;
    so.bytes_per_call = 1200;
    so.batch = 8;
    so.bitrate = 50000000;
    UdpRecvOptions ro;
    ro.mode = UdpRxMode::mmsg;
    ro.datagram_size = 1200;
    auto [s, r] = run_pair(p, so, ro, 10, 1200 * 1000 + 500);
    ASSERT_EQ(r.error, 0) << r.failed_call;
    EXPECT_EQ(s.bytes, 1200u * 1000 + 500);
    EXPECT_EQ(s.udp.datagrams, 1001u);
    EXPECT_EQ(r.bytes, s.bytes);
    EXPECT_EQ(r.udp.datagrams, 1001u);
    EXPECT_EQ(r.udp.lost, 0u);
}

TEST(UdpLoops, StarvedReceiverCountsLossesAsTheKernelDoes) {
    UdpPair p(4096);  // a receive buffer of a few datagrams
    UdpSendOptions so;
    so.bytes_per_call = 1400;
    std::atomic<bool> abort{false};
    UdpSender s(p.tx.get(), so);
    UdpReceiver r(p.rx.get(), {});
    StopRule stop = timed(0.3, abort);
    Ran sc = ran(s, stop);  // unpaced, nobody reading: the socket overflows
    Ran rc = ran(r, stop);
    ASSERT_EQ(rc.error, 0) << rc.failed_call;
    EXPECT_TRUE(rc.udp.end_marker);
    EXPECT_GT(rc.udp.lost, 0u);
    EXPECT_EQ(rc.udp.lost + rc.udp.datagrams, sc.udp.datagrams);
    // The kernel's count: every datagram the socket dropped (data, and end markers repeated while it was full),
    // read once at the end (SO_MEMINFO, Linux 4.12): this kernel says, and it is the socket's count now.
    EXPECT_GE(rc.udp.kernel_drops, rc.udp.lost);
    std::optional<uint64_t> drops = socket_drops(p.rx.get());
    ASSERT_TRUE(drops.has_value());
    EXPECT_EQ(rc.udp.kernel_drops, *drops);
}

TEST(UdpLoops, GsoSegmentsCarryHeadersWithAndWithoutGro) {
    for (UdpRxMode mode : {UdpRxMode::copy, UdpRxMode::gro}) {
        UdpPair p(kRoomy);
        UdpSendOptions so;
        so.gso = true;
        so.gso_size = 1400;
        so.bytes_per_call = 1400 * 40 + 100;  // 41 segments, the last short
        so.bitrate = 100000000;
        UdpRecvOptions ro;
        ro.mode = mode;
        ro.datagram_size = 1400;
        auto [s, r] = run_pair(p, so, ro, 0.3);
        ASSERT_EQ(s.error, 0) << s.failed_call;
        ASSERT_EQ(r.error, 0) << r.failed_call;
        EXPECT_EQ(s.udp.datagrams, s.ops * 41);
        EXPECT_EQ(r.udp.datagrams, s.udp.datagrams);
        EXPECT_EQ(r.bytes, s.bytes);
        EXPECT_EQ(r.udp.lost, 0u);
        if (mode == UdpRxMode::gro) {
            EXPECT_GT(r.udp.gro_buffers, 0u);  // lo hands the GSO buffer up whole
        } else {  // segmented for a reader without GRO: a datagram per call (and one or more for the end marker)
            EXPECT_EQ(r.udp.gro_buffers, 0u);
            EXPECT_GE(r.ops, r.udp.datagrams + 1);
        }
    }
}

TEST(UdpLoops, MsgZerocopyCountsCompletionsAndTheCopiedShare) {
    UdpPair p(kRoomy);
    UdpSendOptions so;
    so.gso = true;
    so.zerocopy = true;
    so.gso_size = 1400;
    so.bytes_per_call = 1400 * 40;
    so.bitrate = 100000000;
    UdpRecvOptions ro;
    ro.datagram_size = 1400;
    auto [s, r] = run_pair(p, so, ro, 0.3);
    ASSERT_EQ(s.error, 0) << s.failed_call;
    ASSERT_EQ(r.error, 0) << r.failed_call;
    EXPECT_EQ(r.bytes, s.bytes);
    EXPECT_EQ(s.zerocopy.sent_bytes, s.bytes);
    EXPECT_GT(s.zerocopy.completions, 0u);
    EXPECT_EQ(s.zerocopy.copied_bytes, s.bytes);  // loopback always copies (the receiver could see the pages change)
}

TEST(UdpLoops, GsoSizeOverTheMtuIsRefused) {
    UdpPair p;
    UdpSendOptions so;
    so.gso = true;
    so.gso_size = 65000;
    so.bytes_per_call = 65000;
    try {
        UdpSender s(p.tx.get(), so);
        SUCCEED();  // lo's MTU (65536) allows it: one segment
    } catch (const std::exception& e) {
        FAIL() << e.what();
    }
    so.gso_size = 100;
    so.bytes_per_call = 100 * 65;
    try {
        UdpSender s(p.tx.get(), so);
        FAIL() << "65 segments accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(has(e.what(), "UDP_MAX_SEGMENTS")) << e.what();
    }
}

TEST(UdpLoops, RrCountsTransactionsAndEndsBoundedWhenTheResponderIsGone) {
    {
        UdpPair p;
        LatencyHistogram rtt;
        std::atomic<bool> abort{false};
        UdpRrInitiator i(p.tx.get(), 64, 4096, rtt);
        UdpRrResponder r(p.rx.get(), 64, 4096);
        StopRule stop = timed(0.2, abort);
        StreamCounters rc;
        std::thread t([&] { rc = r.run(stop); });
        Ran ic = ran(i, stop);
        t.join();
        ASSERT_EQ(ic.error, 0) << ic.failed_call;
        EXPECT_GT(ic.messages, 10u);
        EXPECT_EQ(ic.messages, rc.messages);
        EXPECT_EQ(ic.udp.rr_timeouts, 0u);
    }
    {
        UdpPair p;
        p.rx.reset();  // nobody answers: each request waits kUdpRrWaitMs, then the test ends with an error
        LatencyHistogram rtt;
        std::atomic<bool> abort{false};
        UdpRrInitiator i(p.tx.get(), 64, 4096, rtt);
        StopRule stop = timed(0.1, abort);
        int64_t t0 = monotonic_ns();
        StreamCounters ic = i.run(stop);
        EXPECT_LT((monotonic_ns() - t0) / 1e9, 5.0);
        EXPECT_NE(ic.error, 0);
    }
}

TEST(UdpLoops, ReceiverWithNoSenderEndsBounded) {
    UdpPair p;
    std::atomic<bool> abort{false};
    UdpReceiver r(p.rx.get(), {});
    StopRule stop = timed(0.0, abort);
    int64_t t0 = monotonic_ns();
    StreamCounters rc = r.run(stop);
    double waited = (monotonic_ns() - t0) / 1e9;
    EXPECT_EQ(rc.error, ETIMEDOUT);
    EXPECT_TRUE(has(rc.failed_call, "no UDP datagram arrived")) << rc.failed_call;
    EXPECT_GT(waited, 4.5);
    EXPECT_LT(waited, 7.0);
}
