// The CUDA layer on a real GPU: devices and where they sit, device and pinned memory, the bounce
// ring's copies and counts, the dmabuf export hook, and the copy bandwidth reference.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "memory/bounce_ring.hpp"
#include "cuda/copy.hpp"
#include "memory/copy_bandwidth.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/dmabuf.hpp"
#include "memory/gpu_message.hpp"
#include "system/gpu_topology.hpp"
#include "gpu_test.hpp"
#include "memory/host_buffer.hpp"
#include "memory/pattern.hpp"

using namespace zc;

TEST(GpuDevices, EachHasAPciAddressInSysfs) {
    ZC_REQUIRE_GPU();
    for (const auto& g : cuda::devices()) {
        std::cout << "cuda:" << g.index << " " << g.name << " pci " << g.pci << " " << (g.memory_bytes >> 30)
                  << " GiB\n";
        EXPECT_EQ(g.pci.size(), 12u) << g.pci;
        EXPECT_TRUE(std::filesystem::exists("/sys/bus/pci/devices/" + g.pci)) << g.pci;
    }
    for (const auto& d : cuda::gpu_localities()) {
        std::cout << d.name << " node " << d.numa_node << " path " << d.pcie_path << "\n";
        EXPECT_FALSE(d.pcie_path.empty()) << d.name;
    }
    auto types = cuda::memory_types();
    EXPECT_EQ(types[0], "host");
    EXPECT_EQ(types[1], "pinned");
    EXPECT_EQ(types[2], "cuda:0");
}

TEST(GpuMemory, DeviceBufferIsWholeGpuPagesAndHoldsWhatIsCopiedIn) {
    ZC_REQUIRE_GPU();
    cuda::DeviceBuffer d(0, 3u << 20);
    EXPECT_EQ(d.size(), 3u << 20);
    EXPECT_EQ(d.allocated(), 4u << 20);
    std::vector<std::byte> in(d.size()), out(d.size());
    fill_pattern(in.data(), in.size(), 7);
    cuda::copy(d.data(), in.data(), in.size());
    cuda::copy(out.data(), d.data(), out.size());
    EXPECT_EQ(in, out);
}

TEST(GpuMemory, PinnedHostBufferIsAlignedAndPatterned) {
    ZC_REQUIRE_GPU();
    HostBuffer b(1 << 20, 1 << 21, HostMemory::pinned);
    EXPECT_TRUE(b.pinned());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % (1 << 21), 0u);
    EXPECT_EQ(b.data()[27], pattern_byte(27));
    HostBuffer moved(std::move(b));
    EXPECT_TRUE(moved.pinned());
    EXPECT_FALSE(b.pinned());
}

TEST(GpuMemory, BounceRingStagesBothWaysAndCountsIt) {
    ZC_REQUIRE_GPU();
    const size_t n = (5u << 20) + 123;  // not a multiple of the slot
    cuda::DeviceBuffer src(0, n), dst(0, n);
    cuda::BounceRing ring(0, 1u << 20, 3, 4096);
    cuda::upload_pattern(ring, src.data(), n, n);
    ring.reset_counts();
    // device -> slot -> device, slot by slot, the next copy queued before the last is waited for.
    for (size_t off = 0, k = 0; off < n; off += ring.slot_bytes(), ++k) {
        int i = static_cast<int>(k % 3);
        size_t len = std::min(ring.slot_bytes(), n - off);
        ring.wait(i);
        ring.fill_from_device(i, src.data() + off, len);
        ring.wait(i);
        EXPECT_EQ(ring.slot(i)[0], pattern_byte(off));
        ring.drain_to_device(i, dst.data() + off, len);
    }
    ring.wait_all();
    std::vector<std::byte> out(n);
    cuda::copy(out.data(), dst.data(), n);
    for (size_t i = 0; i < n; i += 4093) ASSERT_EQ(out[i], pattern_byte(i)) << i;
    EXPECT_EQ(out[n - 1], pattern_byte(n - 1));
    EXPECT_EQ(ring.counts().bytes, 2 * n);
    EXPECT_EQ(ring.counts().copies, 12u);
    EXPECT_GT(ring.counts().copy_ns, 0u);
}

TEST(GpuDmabuf, ExportForVerbsOrSayWhyNot) {
    ZC_REQUIRE_GPU();
    cuda::DeviceBuffer d(0, 4u << 20);
    cuda::Dmabuf b = cuda::export_dmabuf(d);
    if (!b.fd) GTEST_SKIP() << "dmabuf export unavailable here: " << b.unavailable;
    std::cout << "dmabuf fd " << b.fd.get() << " length " << b.length << " offset " << b.offset << "\n";
    EXPECT_EQ(b.length, d.allocated());
    EXPECT_TRUE(b.unavailable.empty());
}

TEST(GpuCopyBandwidth, PinnedCopiesBeatOneGigabytePerSecond) {
    ZC_REQUIRE_GPU();
    auto b = cuda::measure_copy_bandwidth(0, 64u << 20, 5);
    std::cout << "cuda:0 pinned H2D " << b.h2d_pinned_gbs << " GB/s, D2H " << b.d2h_pinned_gbs << " GB/s; pageable H2D "
              << b.h2d_pageable_gbs << ", D2H " << b.d2h_pageable_gbs << "\n";
    EXPECT_GT(b.h2d_pinned_gbs, 1.0);
    EXPECT_GT(b.d2h_pinned_gbs, 1.0);
}

TEST(GpuMemory, GpuMessageStagesOutAndLandsSynchronously) {
    ZC_REQUIRE_GPU();
    cuda::GpuMessage m(0, 4096, 4096);
    const std::byte* out = m.stage_out(100);
    EXPECT_EQ(out[99], pattern_byte(99));
    m.slot()[0] = std::byte{'#'};  // a "received" request
    m.land(1);
    std::byte first{};
    cuda::copy(&first, m.device_buffer().data(), 1);
    EXPECT_EQ(first, std::byte{'#'});
    EXPECT_EQ(m.counts().copies, 2u);
    EXPECT_EQ(m.counts().bytes, 101u);
}
