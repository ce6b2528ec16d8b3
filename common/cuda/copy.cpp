#include "cuda/copy.hpp"

#include "cuda/cuda_check.hpp"

namespace zc::cuda {

void copy_async(void* dst, const void* src, size_t bytes, cudaStream_t s) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync");
}

void copy(void* dst, const void* src, size_t bytes) {
    check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

void zero(void* device_dst, size_t bytes) { check(cudaMemset(device_dst, 0, bytes), "cudaMemset"); }

}  // namespace zc::cuda
