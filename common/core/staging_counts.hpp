#pragma once
// The cost of staging GPU memory through pinned host bounce buffers, as one stream's loop saw it.
// Filled with plain integer adds; summed over streams and iterations as they are.
#include <cstdint>

namespace zc {

struct StagingCounts {
    uint64_t bytes = 0;    // bytes copied between GPU memory and the bounce buffers
    uint64_t copies = 0;   // cudaMemcpyAsync calls
    uint64_t copy_ns = 0;  // GPU time of those copies (CUDA events around each)
    uint64_t wait_ns = 0;  // time the data thread waited for a copy to finish (the stage was behind)

    void add(const StagingCounts& o) {
        bytes += o.bytes;
        copies += o.copies;
        copy_ns += o.copy_ns;
        wait_ns += o.wait_ns;
    }
};

}  // namespace zc
