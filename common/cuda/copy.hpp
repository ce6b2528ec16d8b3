#pragma once
// Copies between host and GPU memory. The direction comes from the addresses (unified addressing):
// host memory must be pinned for the asynchronous copy to overlap with anything.
#include <cstddef>

#include "cuda/cuda_types.hpp"

namespace zc::cuda {

// Queues the copy on s and returns at once.
void copy_async(void* dst, const void* src, size_t bytes, cudaStream_t s);
// Blocks until done: set-up and tests only, never in a data loop.
void copy(void* dst, const void* src, size_t bytes);
void zero(void* device_dst, size_t bytes);

}  // namespace zc::cuda
