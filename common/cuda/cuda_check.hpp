#pragma once
// Turning a CUDA runtime error into an exception that says what failed and what to do next.
// Only the files built with the CUDA toolkit include this.
#include <cuda_runtime.h>

#include <string>

namespace zc::cuda {

// What the user can do about an error (no device, no driver, out of memory), or "".
std::string advice(cudaError_t e);
// Throws std::runtime_error "CALL: cuda's message (advice)" unless e is cudaSuccess.
void check(cudaError_t e, const char* call);

}  // namespace zc::cuda
