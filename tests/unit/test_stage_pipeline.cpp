// The staging pipeline without a GPU: the ring core with the memcpy policy (the test memory kind
// sim-gpu), the staged stream loops end to end over a socketpair with that policy (the same loops
// the CUDA paths run), what the paths and the server's memory limit count, and the CLI's answers
// for GPU memory on each transport. The CUDA policy's own tests are under tests/gpu.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <atomic>
#include <thread>

#include "cli.hpp"
#include "memory/pattern.hpp"
#include "memory/stage_ring.hpp"
#include "parse_cli.hpp"
#include "tcp/tcp_ops.hpp"
#include "../socket_pair.hpp"
#include "../transport_built.hpp"
#include "core/unique_fd.hpp"
#include "kind/spec_rules.hpp"
#include "../half_spec.hpp"

using namespace zc;
using zc::test::parse;

namespace {

using Pair = zc::test::SocketPair;

HalfSpec sim(size_t m) { return zc::test::half_spec(transport_named("tcp"), m, {MemoryKind::sim_gpu, 0}); }

struct Moved {
    StreamCounters sent, received;
};

Moved transfer(StreamLoop& s, StreamLoop& r, uint64_t budget) {
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.byte_budget = budget;
    Moved out;
    std::thread rt([&] { out.received = r.run(StopRule{}); });
    out.sent = s.run(stop);
    rt.join();
    return out;
}

}  // namespace

TEST(StageRing, HostPolicyMovesBytesBothWaysAndCountsEachCopy) {
    std::vector<std::byte> slots(3 * 64), device(64);
    StageRing<HostStageCopy> ring(0, slots.data(), 64, 3);
    fill_pattern(device.data(), 64, 0);
    ring.fill_from_device(1, device.data(), 64);
    EXPECT_TRUE(ring.pending(1));
    ring.wait(1);
    EXPECT_FALSE(ring.pending(1));
    EXPECT_EQ(std::memcmp(ring.slot(1), device.data(), 64), 0);
    std::memset(device.data(), 0, 64);
    ring.drain_to_device(1, device.data(), 40);
    ring.wait_all();
    EXPECT_EQ(device[39], pattern_byte(39));
    EXPECT_EQ(device[40], std::byte{0});  // only what was asked
    EXPECT_EQ(ring.counts().bytes, 104u);
    EXPECT_EQ(ring.counts().copies, 2u);
    ring.reset_counts();
    EXPECT_EQ(ring.counts().copies, 0u);
}

// The staged stream loops (the ones TCP and rsockets run with CUDA) with the memcpy policy: every
// byte arrives, the receiver's "device" ring holds the sender's pattern at the right offsets, and
// the staging counts are the bytes moved. A message of 5 MiB + 4 KiB does not fill whole 1 MiB slots.
TEST(StagedStream, SimGpuToSimGpuLandsThePatternInDeviceMemory) {
    for (size_t m : {(5u << 20) + 4096u, 1000u}) {
        const uint64_t budget = 3 * m + m / 2;  // ends mid-message
        Pair p;
        StreamLoop s;
        StreamLoop r;
        make_tcp_send(s, sim(m), p.tx.get());
        make_tcp_recv(r, sim(m), p.rx.get());
        ASSERT_TRUE(s.holds<TcpStagedSender<HostStageCopy>>());
        ASSERT_TRUE(r.holds<TcpStagedReceiver<HostStageCopy>>());
        Moved run = transfer(s, r, budget);
        ASSERT_EQ(run.sent.error, 0) << run.sent.failed_call;
        ASSERT_EQ(run.received.error, 0) << run.received.failed_call;
        EXPECT_EQ(run.sent.bytes, budget) << m;
        EXPECT_EQ(run.received.bytes, budget) << m;
        EXPECT_EQ(run.sent.staging.bytes, budget) << m;      // a byte budget is staged exactly
        EXPECT_EQ(run.received.staging.bytes, budget) << m;  // and landed exactly
        EXPECT_GT(run.sent.staging.copies, 0u);
        const HostBuffer& dev = r.get_if<TcpStagedReceiver<HostStageCopy>>()->device_buffer();
        size_t checked = std::min<size_t>(dev.size(), budget);
        size_t bad = 0;
        for (size_t i = 0; i < checked; ++i) bad += dev.data()[i] != pattern_byte(i % m);
        EXPECT_EQ(bad, 0u) << "message size " << m << ": bytes in device memory that are not the sender's";
    }
}

TEST(StagedStream, HostSenderToSimGpuReceiver) {
    const size_t m = 65536;
    Pair p;
    StreamLoop s;
    StreamLoop r;
    make_tcp_send(s, zc::test::half_spec(transport_named("tcp"), m), p.tx.get());
    make_tcp_recv(r, sim(m), p.rx.get());
    Moved run = transfer(s, r, 10 * m + 7);
    EXPECT_EQ(run.received.bytes, 10 * m + 7);
    EXPECT_EQ(run.received.staging.bytes, 10 * m + 7);
}

TEST(GpuPaths, OnlyVerbsCanDmaGpuMemory) {
    for (Transport t : {transport_named("tcp"), transport_named("tcp-msgzc"), transport_named("rsocket"),
                        transport_named("rsocket-iomap")}) {
        EXPECT_FALSE(path_can_dma_gpu(t)) << transport_name(t);
    }
    for (Transport t : {transport_named("rdma-write"), transport_named("rdma-send"), transport_named("rdma-read")}) {
        EXPECT_TRUE(path_can_dma_gpu(t)) << transport_name(t);
    }
}

// --max-buffer-memory counts the bounce slots and the GPU buffer, not just one message.
TEST(GpuPaths, BufferBytesCountTheBounceSlots) {
    const BufferSpec gpu{MemoryKind::cuda, 0};
    StageShape big = stage_shape(64u << 20), small = stage_shape(4096);
    using zc::test::half_spec;
    const Transport tcp = transport_named("tcp"), verbs = transport_named("rdma-write");
    EXPECT_EQ(buffer_bytes(half_spec(tcp, 64u << 20, gpu), Role::send), big.host_bytes() + (64u << 20));
    EXPECT_EQ(buffer_bytes(half_spec(tcp, 4096, gpu), Role::recv), small.host_bytes() + small.gpu_bytes(4096));
    EXPECT_GE(buffer_bytes(half_spec(tcp, 1u << 20, gpu), Role::send), 5u << 20);  // 4 slots of 1 MiB + the message
    EXPECT_GE(buffer_bytes(half_spec(tcp, 4096, gpu), Role::recv), 1u << 20);      // 4 slots of a 256 KiB batch
    EXPECT_EQ(buffer_bytes(half_spec(tcp, 4096), Role::recv), 4096u);              // host: unchanged
    // Verbs staged: the registered ring on both sides, plus the GPU memory.
    uint64_t ring = buffer_bytes(half_spec(verbs, 1u << 20), Role::recv);
    EXPECT_EQ(buffer_bytes(half_spec(verbs, 1u << 20, gpu), Role::recv), 2 * ring);
    EXPECT_EQ(buffer_bytes(half_spec(verbs, 1u << 20, gpu), Role::send), ring + (1u << 20));
    EXPECT_EQ(buffer_bytes(half_spec(tcp, 4096, gpu, RxMode::copy, Workload::rr), Role::send), 8192u);
}

TEST(GpuCli, GpuMemoryOnEachTransport) {
    REQUIRE_RDMA_BUILT();
    // (GPU memory on the remote side: a build without CUDA refuses it locally, before any transport.)
    // Verbs take GPU memory, staged or direct (decided when the side registers).
    EXPECT_EQ(parse({"--buffer", ",cuda", "-T", "rdma-write", "--gpu-path", "direct"}), -1);
    EXPECT_EQ(parse({"--buffer", ",cuda", "-T", "rdma-read", "-t", "maerts"}), -1);
    EXPECT_EQ(parse({"--buffer", ",pinned", "-T", "rdma-send"}), -1);
    // rsockets stage; direct is a usage error.
    EXPECT_EQ(parse({"--buffer", ",cuda", "-T", "rsocket"}), -1);
    EXPECT_EQ(parse({"--buffer", ",cuda", "-T", "rsocket", "--gpu-path", "direct"}), 2);
    EXPECT_EQ(parse({"--buffer", ",cuda", "-T", "rsocket-iomap"}), 2);
    EXPECT_EQ(parse({"--buffer", ",pinned", "-T", "rsocket"}), 2);
    // The test kind: streams only.
    EXPECT_EQ(parse({"--buffer", "sim-gpu,sim-gpu", "-T", "rdma-write"}), -1);
    EXPECT_EQ(parse({"--buffer", "sim-gpu", "-t", "rr"}), 2);
    EXPECT_EQ(parse({"--buffer", "sim-gpu", "-t", "msgrate"}), 2);
    EXPECT_EQ(parse({"--buffer", "sim-gpu", "-T", "tcp-msgzc"}), 2);
}

TEST(GpuCli, MsgrateRefusalSaysWhy) {
    std::string why = msgrate_buffer_problem({MemoryKind::cuda, 0});
    EXPECT_NE(why.find("one CUDA copy per message"), std::string::npos) << why;
    EXPECT_EQ(msgrate_buffer_problem({MemoryKind::host, 0}), "");
}
