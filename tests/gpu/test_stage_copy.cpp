// The CUDA copy policy of the staging pipeline (cuda/stage_copy.hpp) as the verbs staged paths use
// it: a StageRing over memory the caller owns (there, the registered MR: here a pinned buffer of the
// same layout), one message per slot, the RDMA wire pattern, samples checked in the bounce slot and
// again in GPU memory. No machine has both a GPU and an RDMA device, so the verbs loops themselves
// run with the memcpy policy in the Soft-RoCE guest (tests/e2e/test_rdma.cpp, RdmaStaged); this is
// the other half: the CUDA policy doing exactly those copies, on a GPU.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/stage_copy.hpp"
#include "gpu_test.hpp"
#include "memory/stage_ring.hpp"
#include "rdma/wire.hpp"

using namespace zc;

namespace {
std::byte wire(uint64_t off) { return static_cast<std::byte>(rdma_wire::pattern_byte(off)); }
}  // namespace

TEST(GpuStageCopy, VerbsLayoutStagesOutAndLandsInWithEvents) {
    ZC_REQUIRE_GPU();
    const size_t msg = 65536 + 100;  // not a multiple of a page
    const int slots = 8;
    HostBuffer mr(msg * slots + 256, 4096, HostMemory::pinned);  // the "registered" ring + control
    StageRing<cuda::CudaStageCopy> ring(0, mr.data(), msg, slots);
    auto message = cuda::CudaStageCopy::allocate(0, msg);
    auto landing = cuda::CudaStageCopy::allocate(0, msg * slots);
    cuda::CudaStageCopy::zero(landing);
    upload_pattern(ring, message.data(), msg, msg, wire);  // as TxStaged does
    ring.reset_counts();
    // Sender side: every slot filled from the one GPU message, all queued before any is waited for.
    for (int i = 0; i < slots; ++i) ring.fill_from_device(i, message.data(), msg);
    for (int i = 0; i < slots; ++i) {
        ring.wait(i);
        ASSERT_TRUE(rdma_wire::check_samples(ring.slot(i), msg)) << "slot " << i;
        rdma_wire::poison_samples(ring.slot(i), msg);
        ASSERT_FALSE(rdma_wire::check_samples(ring.slot(i), msg)) << "poisoning must be visible";
    }
    // Receiver side: slots land into GPU memory slot for slot; the host copy is poisoned only after.
    for (int i = 0; i < slots; ++i) rdma_wire::fill_pattern(ring.slot(i), msg);
    for (int i = 0; i < slots; ++i) ring.drain_to_device(i, landing.data() + i * msg, msg);
    ring.wait_all();
    std::vector<std::byte> back(msg);
    for (int i = 0; i < slots; ++i) {
        cuda::CudaStageCopy::read(back.data(), landing.data() + i * msg, msg);
        ASSERT_TRUE(rdma_wire::check_samples(back.data(), msg)) << "slot " << i << " in GPU memory";
        EXPECT_EQ(back[msg / 3], wire(msg / 3));
    }
    EXPECT_EQ(ring.counts().copies, 2u * slots);
    EXPECT_EQ(ring.counts().bytes, 2u * slots * msg);
    EXPECT_GT(ring.counts().copy_ns, 0u);  // CUDA event time, per copy
}

TEST(GpuStageCopy, PendingUntilWaitedAndCopyTimeCounted) {
    ZC_REQUIRE_GPU();
    const size_t n = 64u << 20;  // long enough that the copy is still running when queued
    HostBuffer host(n, 4096, HostMemory::pinned);
    StageRing<cuda::CudaStageCopy> ring(0, host.data(), n, 1);
    auto dev = cuda::CudaStageCopy::allocate(0, n);
    ring.fill_from_device(0, dev.data(), n);
    EXPECT_TRUE(ring.pending(0));
    ring.wait(0);
    EXPECT_FALSE(ring.pending(0));
    // 64 MiB at well under 100 GB/s takes more than 0.2 ms of GPU time.
    EXPECT_GT(ring.counts().copy_ns, 200'000u);
}
