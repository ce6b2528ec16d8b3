#include "memory/copy_bandwidth.hpp"

#include <vector>

#include "cuda/copy.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/event.hpp"
#include "cuda/stream.hpp"
#include "memory/host_buffer.hpp"

namespace zc::cuda {

namespace {

// Median-free on purpose: the mean of `repeats` back-to-back copies after one warm-up, as
// bandwidthTest does, so the figure is comparable with NVIDIA's own tool.
double gbs(void* dst, const void* src, uint64_t bytes, int repeats, const Stream& s) {
    copy_async(dst, src, bytes, s.get());  // warm-up: first-touch mappings, clocks
    s.synchronize();
    Event a(true), b(true);
    a.record(s.get());
    for (int i = 0; i < repeats; ++i) copy_async(dst, src, bytes, s.get());
    b.record(s.get());
    b.wait();
    double ms = b.ms_since(a);
    return ms > 0 ? static_cast<double>(bytes) * repeats / (ms * 1e-3) / 1e9 : 0;
}

}  // namespace

CopyBandwidth measure_copy_bandwidth(int device, uint64_t bytes, int repeats) {
    use_device(device);
    CopyBandwidth r;
    r.device = device;
    r.name = devices().at(static_cast<size_t>(device)).name;
    r.bytes = bytes;
    r.repeats = repeats;
    DeviceBuffer gpu(device, bytes);
    HostBuffer pinned(bytes, 4096, HostMemory::pinned);
    HostBuffer pageable(bytes, 4096, HostMemory::pageable);
    Stream s;
    r.h2d_pinned_gbs = gbs(gpu.data(), pinned.data(), bytes, repeats, s);
    r.d2h_pinned_gbs = gbs(pinned.data(), gpu.data(), bytes, repeats, s);
    r.h2d_pageable_gbs = gbs(gpu.data(), pageable.data(), bytes, repeats, s);
    r.d2h_pageable_gbs = gbs(pageable.data(), gpu.data(), bytes, repeats, s);
    return r;
}

}  // namespace zc::cuda
