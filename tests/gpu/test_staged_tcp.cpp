// Staged TCP over a real socket pair: the data really lands in the receiver's GPU memory, at the
// right offsets, whichever side is on the GPU, and the staging is counted.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "cuda/copy.hpp"
#include "gpu_test.hpp"
#include "memory/pattern.hpp"
#include "tcp/tcp_ops.hpp"
#include "../socket_pair.hpp"
#include "core/unique_fd.hpp"
#include "../half_spec.hpp"

using namespace zc;

namespace {

using Pair = zc::test::SocketPair;

HalfSpec options(size_t message_size, BufferSpec b) {
    return zc::test::half_spec(transport_named("tcp"), message_size, b);
}

// Checks the GPU buffer (its first `bytes`; a ring of messages of `m` bytes) against the pattern,
// and prints a few samples.
void expect_pattern_on_gpu(const cuda::DeviceBuffer& d, size_t m, size_t bytes = SIZE_MAX) {
    std::vector<std::byte> out(std::min(d.size(), bytes));
    cuda::copy(out.data(), d.data(), out.size());
    size_t bad = 0;
    for (size_t i = 0; i < out.size(); ++i) bad += out[i] != pattern_byte(i % m);
    EXPECT_EQ(bad, 0u) << "bytes in GPU memory that are not the sender's data";
    std::cout << "GPU samples: [0]=" << char(out[0]) << " [" << out.size() / 2 << "]=" << char(out[out.size() / 2])
              << " [" << out.size() - 1 << "]=" << char(out.back()) << " (" << out.size() << " bytes checked)\n";
}

}  // namespace

TEST(StagedTcp, GpuToGpuLandsThePatternInGpuMemory) {
    ZC_REQUIRE_GPU();
    const size_t m = (5u << 20) + 4096;  // messages are not a multiple of the 1 MiB slot
    const uint64_t budget = 3 * m + m / 2;
    Pair p;
    StreamLoop s;
    StreamLoop r;
    make_tcp_send(s, options(m, {MemoryKind::cuda, 0}), p.tx.get());
    make_tcp_recv(r, options(m, {MemoryKind::cuda, 0}), p.rx.get());
    ASSERT_TRUE(s.holds<TcpStagedSender<cuda::CudaStageCopy>>());
    ASSERT_TRUE(r.holds<TcpStagedReceiver<cuda::CudaStageCopy>>());
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.byte_budget = budget;
    StreamCounters rc;
    std::thread rt([&] { rc = r.run(StopRule{}); });
    StreamCounters sc = s.run(stop);
    rt.join();
    ASSERT_EQ(sc.error, 0) << sc.failed_call;
    ASSERT_EQ(rc.error, 0) << rc.failed_call;
    EXPECT_EQ(sc.bytes, budget);
    EXPECT_EQ(rc.bytes, budget);
    EXPECT_EQ(sc.staging.bytes, budget);
    EXPECT_EQ(rc.staging.bytes, budget);
    EXPECT_GT(sc.staging.copy_ns, 0u);
    EXPECT_GT(rc.staging.copy_ns, 0u);
    expect_pattern_on_gpu(r.get_if<TcpStagedReceiver<cuda::CudaStageCopy>>()->device_buffer(), m);
}

TEST(StagedTcp, HostToGpuLandsThePatternInGpuMemory) {
    ZC_REQUIRE_GPU();
    const size_t m = 3u << 20;
    Pair p;
    StreamLoop s;
    StreamLoop r;
    make_tcp_send(s, options(m, {MemoryKind::host, 0}), p.tx.get());
    make_tcp_recv(r, options(m, {MemoryKind::cuda, 0}), p.rx.get());
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.byte_budget = 4 * m;
    StreamCounters rc;
    std::thread rt([&] { rc = r.run(StopRule{}); });
    StreamCounters sc = s.run(stop);
    rt.join();
    EXPECT_EQ(rc.bytes, 4 * m);
    EXPECT_EQ(rc.staging.bytes, 4 * m);
    EXPECT_EQ(sc.staging.bytes, 0u);
    expect_pattern_on_gpu(r.get_if<TcpStagedReceiver<cuda::CudaStageCopy>>()->device_buffer(), m);
}

TEST(StagedTcp, GpuToHostSendsTheGpuDataInOrder) {
    ZC_REQUIRE_GPU();
    const size_t m = (2u << 20) + 100;
    const uint64_t budget = 5 * m;
    Pair p;
    StreamLoop s;
    make_tcp_send(s, options(m, {MemoryKind::cuda, 0}), p.tx.get());
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.byte_budget = budget;
    uint64_t got = 0, bad = 0;
    std::thread rt([&] {
        std::vector<std::byte> buf(1 << 16);
        ssize_t n;
        while ((n = ::recv(p.rx.get(), buf.data(), buf.size(), 0)) > 0) {
            for (ssize_t i = 0; i < n; ++i)
                bad += buf[static_cast<size_t>(i)] != pattern_byte((got + static_cast<uint64_t>(i)) % m);
            got += static_cast<uint64_t>(n);
        }
    });
    StreamCounters sc = s.run(stop);
    rt.join();
    EXPECT_EQ(got, budget);
    EXPECT_EQ(bad, 0u) << "bytes on the wire that are not the GPU buffer's";
    EXPECT_EQ(sc.staging.bytes, budget);
}

TEST(StagedTcp, PinnedHostMemoryIsUsedDirectly) {
    ZC_REQUIRE_GPU();
    Pair p;
    StreamLoop s;
    make_tcp_send(s, options(1 << 20, {MemoryKind::pinned, 0}), p.tx.get());
    ASSERT_TRUE(s.holds<TcpCopySender>());
    EXPECT_TRUE(s.buffer()->pinned());
}

TEST(StagedTcp, SmallMessagesAreStagedInBatchesButSentOneByOne) {
    ZC_REQUIRE_GPU();
    const size_t m = 8;
    Pair p;
    StreamLoop s;
    StreamLoop r;
    make_tcp_send(s, options(m, {MemoryKind::cuda, 0}), p.tx.get());
    make_tcp_recv(r, options(m, {MemoryKind::cuda, 0}), p.rx.get());
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    StageShape shape = stage_shape(m);
    ASSERT_GT(shape.batch, 1000u);
    stop.byte_budget = 8 * (shape.batch + 1000);  // one whole batch, then 1000 messages more
    StreamCounters rc;
    std::thread rt([&] { rc = r.run(StopRule{}); });
    StreamCounters sc = s.run(stop);
    rt.join();
    EXPECT_EQ(rc.bytes, stop.byte_budget);
    EXPECT_EQ(sc.ops, shape.batch + 1000);  // one send() per message
    EXPECT_EQ(sc.staging.copies, 2u);       // one copy per batch
    EXPECT_EQ(rc.staging.copies, 2u);
    const auto& gpu = r.get_if<TcpStagedReceiver<cuda::CudaStageCopy>>()->device_buffer();
    EXPECT_EQ(gpu.size(), 8 * shape.batch);
    expect_pattern_on_gpu(gpu, m);
}
