#include "cuda/pinned_memory.hpp"

#include <stdexcept>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"

namespace zc::cuda {

void* pinned_alloc(size_t bytes) {
    if (devices().empty()) throw std::runtime_error("pinned host memory needs CUDA, but " + unavailable_reason());
    void* p = nullptr;
    // Portable: usable from any device's context (a side may pin here and copy on cuda:1).
    check(cudaHostAlloc(&p, bytes, cudaHostAllocPortable), "cudaHostAlloc");
    return p;
}

void pinned_free(void* p) noexcept {
    if (p) cudaFreeHost(p);
}

}  // namespace zc::cuda
