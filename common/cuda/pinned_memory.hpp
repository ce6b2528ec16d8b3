#pragma once
// Page-locked host memory from cudaHostAlloc: the GPU's copy engines DMA to and from it directly,
// which is what lets cudaMemcpyAsync overlap with the CPU's work. HostBuffer owns what this returns.
#include <cstddef>

namespace zc::cuda {

void* pinned_alloc(size_t bytes);  // throws std::runtime_error saying why (no CUDA, out of memory)
void pinned_free(void* p) noexcept;

}  // namespace zc::cuda
