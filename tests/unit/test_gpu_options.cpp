// GPU buffers without a GPU: option parsing, the spec and result on the wire, the clear errors for
// paths that cannot use GPU or pinned memory, and a build without CUDA saying so. Runs everywhere.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "parse_cli.hpp"
#include "cli.hpp"
#include "cuda/device.hpp"
#include "system/gpu_topology.hpp"
#include "core/buffer_spec.hpp"
#include "core/gpu_path.hpp"
#include "memory/host_buffer.hpp"
#include "protocol/frame.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"
#include "tcp/tcp_ops.hpp"
#include "socket/staged_stream.hpp"
#include "core/unique_fd.hpp"
#include "../half_spec.hpp"

using namespace zc;
using zc::test::parse;

namespace {

template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(BufferSpec, NamesRoundTrip) {
    EXPECT_EQ(buffer_spec_from_name("host"), (BufferSpec{MemoryKind::host, 0}));
    EXPECT_EQ(buffer_spec_from_name("pinned"), (BufferSpec{MemoryKind::pinned, 0}));
    EXPECT_EQ(buffer_spec_from_name("cuda"), (BufferSpec{MemoryKind::cuda, 0}));
    EXPECT_EQ(buffer_spec_from_name("cuda:3"), (BufferSpec{MemoryKind::cuda, 3}));
    for (const char* n : {"host", "pinned", "cuda:0", "cuda:12"})
        EXPECT_EQ(buffer_spec_name(buffer_spec_from_name(n)), n);
    for (const char* bad : {"", "gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:99999", "Host"}) {
        EXPECT_NE(error_of([&] { buffer_spec_from_name(bad); }).find("use host"), std::string::npos) << bad;
    }
}

TEST(GpuPath, TcpCanOnlyStage) {
    EXPECT_EQ(gpu_path_from_name("staged"), GpuPath::staged);
    EXPECT_EQ(resolve_gpu_path(GpuPath::auto_, false, "tcp", true), GpuPath::staged);
    EXPECT_EQ(resolve_gpu_path(GpuPath::auto_, true, "rdma", false), GpuPath::direct);
    EXPECT_EQ(resolve_gpu_path(GpuPath::staged, true, "rdma", false), GpuPath::staged);
    std::string e = error_of([] { resolve_gpu_path(GpuPath::direct, false, "tcp", true); });
    EXPECT_NE(e.find("tcp cannot DMA into GPU memory (TCP copies"), std::string::npos) << e;
    std::string r = error_of([] { resolve_gpu_path(GpuPath::direct, false, "rsocket", false); });
    EXPECT_NE(r.find("rsocket cannot DMA into GPU memory (this path does not register"), std::string::npos) << r;
    EXPECT_NE(e.find("staged"), std::string::npos) << e;
    EXPECT_NE(error_of([] { gpu_path_from_name("dma"); }).find("staged"), std::string::npos);
}

TEST(GpuCli, BufferIsPerSideLikeCpu) {
    ClientOptions o;
    int rc = parse({"--buffer", "cuda:1,host"}, o);
    if (!cuda::built()) {
        EXPECT_EQ(rc, 2);  // a build without CUDA refuses local GPU memory at once
        return;
    }
    ASSERT_EQ(rc, -1);
    EXPECT_EQ(o.local.buffer, (BufferSpec{MemoryKind::cuda, 1}));
    EXPECT_EQ(o.remote.buffer, (BufferSpec{MemoryKind::host, 0}));
    ClientOptions p;
    ASSERT_EQ(parse({"--buffer", "pinned"}, p), -1);
    EXPECT_EQ(p.local.buffer.kind, MemoryKind::pinned);
    EXPECT_EQ(p.remote.buffer.kind, MemoryKind::host);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 1u);
    EXPECT_EQ(specs[0].local.buffer.device, 1);
}

TEST(GpuCli, RemoteOnlyGpuParsesEverywhere) {
    ClientOptions o;
    ASSERT_EQ(parse({"--buffer", ",cuda", "--gpu-path", "staged"}, o), -1);  // the server decides if it can
    EXPECT_EQ(o.local.buffer.kind, MemoryKind::host);
    EXPECT_EQ(o.remote.buffer, (BufferSpec{MemoryKind::cuda, 0}));
    EXPECT_EQ(o.local.gpu_path, GpuPath::staged);
    EXPECT_EQ(o.remote.gpu_path, GpuPath::staged);
}

TEST(GpuCli, ImpossibleCombinationsAreUsageErrors) {
    ClientOptions o;
    EXPECT_EQ(parse({"--buffer", ",cuda", "--gpu-path", "direct"}, o), 2);             // TCP cannot DMA
    EXPECT_EQ(parse({"--buffer", ",cuda", "--rx", "trunc"}, o), 2);                    // data never lands
    EXPECT_EQ(parse({"--buffer", ",cuda", "-t", "maerts", "-T", "tcp-msgzc"}, o), 2);  // server sends zero-copy
    EXPECT_EQ(parse({"--buffer", "cuda,host,pinned"}, o), 2);
    EXPECT_EQ(parse({"--buffer", "gpu0"}, o), 2);
    EXPECT_EQ(parse({"--gpu-path", "fast"}, o), 2);
    ClientOptions ok;
    EXPECT_EQ(parse({"--buffer", ",cuda", "-T", "tcp-msgzc", "--gpu-path", "staged"}, ok), -1);  // the host side sends
}

TEST(GpuCli, CheckNamesTheCause) {
    ClientOptions o;
    o.remote.buffer = {MemoryKind::cuda, 0};
    o.remote.gpu_path = GpuPath::direct;
    std::string e = error_of([&] { check_tests(o); });
    EXPECT_NE(e.find("TCP copies through CPU-addressable pages"), std::string::npos) << e;
    o.remote.gpu_path = GpuPath::auto_;
    o.rx_modes = {RxMode::zerocopy};
    e = error_of([&] { check_tests(o); });
    EXPECT_NE(e.find("--rx copy"), std::string::npos) << e;
}

TEST(GpuSpec, BufferAndGpuPathTravelAndDefaultToHost) {
    TestSpec t;
    t.remote.buffer = {MemoryKind::cuda, 2};
    t.remote.gpu_path = GpuPath::staged;
    auto j = to_json(server_half(t));
    HalfSpec s = half_spec_from_json(j);
    EXPECT_EQ(s.side.buffer, (BufferSpec{MemoryKind::cuda, 2}));
    EXPECT_EQ(s.side.gpu_path, GpuPath::staged);
    j.erase("buffer");
    j.erase("gpu_path");
    HalfSpec old = half_spec_from_json(j);  // a peer from before GPU buffers
    EXPECT_EQ(old.side.buffer.kind, MemoryKind::host);
    j["buffer"] = "vram";
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);
}

TEST(GpuResult, MemoryAndGpuPlacementRoundTrip) {
    SideResult r;
    r.cpu.ncpus = 2;
    r.memory.buffer = "cuda:0";
    r.memory.gpu_path = "staged";
    r.memory.stage_slot_bytes = 1 << 20;
    r.memory.stage_slots = 4;
    r.memory.staging = {1000, 10, 5000, 70};
    r.placement.gpu = {"cuda:0",
                       "NVIDIA H200",
                       "0000:19:00.0",
                       1,
                       "pci0000:17/0000:17:00.0/0000:19:00.0",
                       "same PCIe switch (via 0000:18:00.0)",
                       true};
    auto j = to_json(r);
    EXPECT_DOUBLE_EQ(j["memory"]["stage_copy_gbs"].get<double>(), 1000 / 5e-6 / 1e9);
    SideResult back = side_result_from_json(j);
    EXPECT_EQ(back.memory.buffer, "cuda:0");
    EXPECT_EQ(back.memory.staging.copies, 10u);
    EXPECT_EQ(back.memory.staging.wait_ns, 70u);
    EXPECT_EQ(back.placement.gpu.pci, "0000:19:00.0");
    EXPECT_EQ(back.placement.gpu.numa_node, 1);
    EXPECT_TRUE(back.placement.gpu.shares_root_port);
    j.erase("memory");
    j["placement"].erase("gpu");
    EXPECT_EQ(side_result_from_json(j).memory.buffer, "host");  // older peers
}

TEST(GpuPaths, OnlyTheCopyPathsTakeOtherMemory) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    UniqueFd a(sv[0]), b(sv[1]);
    const BufferSpec gpu{MemoryKind::cuda, 0};
    StreamLoop s;
    StreamLoop r;
    HalfSpec sendfile = zc::test::half_spec(transport_named("tcp-sendfile"), 4096, gpu);
    EXPECT_NE(error_of([&] { make_tcp_send(s, sendfile, a.get()); }).find("-T tcp"), std::string::npos);
    HalfSpec splice = zc::test::half_spec(transport_named("tcp"), 4096, gpu, RxMode::splice);
    EXPECT_NE(error_of([&] { make_tcp_recv(r, splice, b.get()); }).find("--rx copy"), std::string::npos);
    HalfSpec direct = zc::test::half_spec(transport_named("tcp"), 4096, gpu);
    direct.side.gpu_path = GpuPath::direct;
    EXPECT_NE(error_of([&] { make_tcp_send(s, direct, a.get()); }).find("cannot DMA"), std::string::npos);
    EXPECT_NE(error_of([&] { make_tcp_recv(r, direct, b.get()); }).find("use --gpu-path staged"), std::string::npos);
}

TEST(GpuPaths, WithoutAGpuTheErrorSaysWhy) {
    if (!cuda::devices().empty()) GTEST_SKIP() << "a GPU is here: the gpu-labelled tests cover this host";
    std::string e = error_of([] { HostBuffer b(4096, 4096, HostMemory::pinned); });
    EXPECT_NE(e.find("pinned host memory needs CUDA"), std::string::npos) << e;
    EXPECT_FALSE(cuda::unavailable_reason().empty());
    EXPECT_EQ(cuda::memory_types(), std::vector<std::string>{"host"});
}

TEST(GpuPci, CudaBusIdsAreNormalisedToSysfsForm) {
    EXPECT_EQ(cuda::normalise_pci("00000000:19:00.0"), "0000:19:00.0");
    EXPECT_EQ(cuda::normalise_pci("0000:AE:1F.7"), "0000:ae:1f.7");
    EXPECT_EQ(cuda::normalise_pci("not a bus id"), "");
    EXPECT_EQ(cuda::normalise_pci("0000:19:00.0x"), "");
}

TEST(GpuStaging, LargeMessagesGoInPiecesSmallOnesInBatches) {
    StageShape big = stage_shape(4u << 20);
    EXPECT_EQ(big.slot_bytes, 1u << 20);
    EXPECT_EQ(big.slots, 4);
    EXPECT_EQ(big.batch, 1u);
    EXPECT_EQ(big.gpu_bytes(4u << 20), 4u << 20);
    StageShape tiny = stage_shape(8);
    EXPECT_EQ(tiny.batch, (256u << 10) / 8);
    EXPECT_EQ(tiny.slot_bytes, 256u << 10);
    StageShape odd = stage_shape(100000);  // 2 whole messages per copy, never a part of a third
    EXPECT_EQ(odd.batch, 2u);
    EXPECT_EQ(odd.slot_bytes, 200000u);
    StageShape mid = stage_shape(300u << 10);
    EXPECT_EQ(mid.batch, 1u);
    EXPECT_EQ(mid.slot_bytes, 300u << 10);
}
