// rr with GPU memory (--buffer cuda): over a real socket pair the request lands in the responder's
// GPU memory and goes back out of it, and each side counts its two stagings per transaction.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/copy.hpp"
#include "gpu_test.hpp"
#include "memory/pattern.hpp"
#include "tcp/tcp_ops.hpp"
#include "core/unique_fd.hpp"

using namespace zc;

namespace {

int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A connected TCP pair over loopback (rr sets TCP_NODELAY, which a socketpair refuses).
struct Pair {
    UniqueFd a, b;
    Pair() {
        UniqueFd l(::socket(AF_INET, SOCK_STREAM, 0));
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof(addr);
        if (::bind(l.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(l.get(), 1) != 0 ||
            ::getsockname(l.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
            throw std::runtime_error("loopback listen");
        }
        a.reset(::socket(AF_INET, SOCK_STREAM, 0));
        if (::connect(a.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0) throw std::runtime_error("connect");
        b.reset(::accept(l.get(), nullptr, nullptr));
        if (b.get() < 0) throw std::runtime_error("accept");
    }
};

HalfSpec rr_half(size_t m, BufferSpec where) {
    HalfSpec h;
    h.test = Workload::rr;
    h.transport = transport_named("tcp");
    h.message_size = m;
    h.side.buffer = where;
    return h;
}

// Runs the initiator for `ns` against the responder on its own thread; returns {initiator, responder}.
std::pair<StreamCounters, StreamCounters> run_transactions(StreamLoop& init, StreamLoop& resp, int64_t ns) {
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.deadline_ns = now_ns() + ns;
    StreamCounters rc;
    std::thread rt([&] { rc = resp.run(StopRule{}); });
    StreamCounters ic = init.run(stop);
    rt.join();
    return {ic, rc};
}

}  // namespace

TEST(RrGpu, GpuToGpuTransactionsLandTheRequestInTheRespondersGpuMemory) {
    ZC_REQUIRE_GPU();
    const size_t m = (1u << 20) + 4096;  // not a power of two: every byte is checked
    Pair p;
    LatencyHistogram rtt, unused;
    StreamLoop init, resp;
    // Through make_tcp_exchange, as the tcp operations table builds it: --buffer cuda picks the GPU loops.
    make_tcp_exchange(init, rr_half(m, {MemoryKind::cuda, 0}), Role::send, p.a.get(), rtt);
    make_tcp_exchange(resp, rr_half(m, {MemoryKind::cuda, 0}), Role::recv, p.b.get(), unused);
    ASSERT_TRUE(init.holds<TcpRrGpuInitiator>());
    ASSERT_TRUE(resp.holds<TcpRrGpuResponder>());

    // The responder's GPU memory starts zeroed, so the pattern there can only be the request.
    const auto& gpu = resp.get_if<TcpRrGpuResponder>()->memory().device_buffer();
    std::vector<std::byte> before(m);
    cuda::copy(before.data(), gpu.data(), m);
    EXPECT_EQ(before[0], std::byte{0});

    auto [ic, rc] = run_transactions(init, resp, 200'000'000);
    ASSERT_EQ(ic.error, 0) << ic.failed_call;
    ASSERT_EQ(rc.error, 0) << rc.failed_call;
    ASSERT_GT(ic.messages, 0u);
    EXPECT_EQ(rc.messages, ic.messages);
    EXPECT_EQ(rtt.count(), ic.messages);
    // Per transaction and side: the message out of the GPU once and into it once.
    for (const StreamCounters* c : {&ic, &rc}) {
        EXPECT_EQ(c->staging.bytes, 2 * m * ic.messages);
        EXPECT_EQ(c->staging.copies, 2 * ic.messages);
        EXPECT_GT(c->staging.copy_ns, 0u);
    }

    std::vector<std::byte> out(m);
    cuda::copy(out.data(), gpu.data(), m);
    size_t bad = 0;
    for (size_t i = 0; i < m; ++i) bad += out[i] != pattern_byte(i);
    EXPECT_EQ(bad, 0u) << "bytes in the responder's GPU memory that are not the request";
    std::cout << ic.messages << " transactions of " << m << " B in 0.2 s; mean RTT "
              << (rtt.count() ? rtt.sum() / rtt.count() / 1000.0 : 0) << " us; responder GPU [0]=" << char(out[0])
              << " [" << m - 1 << "]=" << char(out[m - 1]) << "\n";
}

TEST(RrGpu, PinnedRrUsesPinnedHostMemoryInPlace) {
    ZC_REQUIRE_GPU();
    Pair p;
    LatencyHistogram rtt, unused;
    StreamLoop init, resp;
    make_tcp_exchange(init, rr_half(4096, {MemoryKind::pinned, 0}), Role::send, p.a.get(), rtt);
    make_tcp_exchange(resp, rr_half(4096, {MemoryKind::host, 0}), Role::recv, p.b.get(), unused);
    ASSERT_TRUE(init.holds<TcpRrInitiator>());  // the host loop, no staging
    auto [ic, rc] = run_transactions(init, resp, 50'000'000);
    ASSERT_EQ(ic.error, 0) << ic.failed_call;
    EXPECT_GT(ic.messages, 0u);
    EXPECT_EQ(ic.staging.bytes, 0u);
}
