#pragma once
// The reference a staged GPU stream is held against: cudaMemcpy's own host<->device bandwidth on
// this machine, pinned and pageable, timed with CUDA events (zcperf --gpu-copy-bandwidth).
#include <cstdint>
#include <string>
#include <vector>

namespace zc::cuda {

struct CopyBandwidth {
    int device = 0;
    std::string name;
    uint64_t bytes = 0;  // per copy
    int repeats = 0;
    double h2d_pinned_gbs = 0, d2h_pinned_gbs = 0;  // GB/s = 1e9 bytes per second
    double h2d_pageable_gbs = 0, d2h_pageable_gbs = 0;
};

// Throws std::runtime_error when CUDA or the device is missing.
CopyBandwidth measure_copy_bandwidth(int device, uint64_t bytes = 256u << 20, int repeats = 10);

}  // namespace zc::cuda
