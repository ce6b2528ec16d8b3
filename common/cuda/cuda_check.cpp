#include "cuda/cuda_check.hpp"

#include <stdexcept>

namespace zc::cuda {

std::string advice(cudaError_t e) {
    switch (e) {
        case cudaErrorNoDevice:
            return "no CUDA device is visible here (check nvidia-smi and CUDA_VISIBLE_DEVICES), or use --buffer host";
        case cudaErrorInsufficientDriver:
            return "the NVIDIA driver is missing or older than this build's CUDA runtime (" +
                   std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
                   "): install a newer driver, or use --buffer host";
        case cudaErrorInvalidDevice:
            return "that CUDA device does not exist here: see zcperf --topology for the GPUs";
        case cudaErrorMemoryAllocation:
            return "out of memory: use smaller messages (-m) or fewer streams (-P)";
        case cudaErrorInitializationError:
            return "CUDA could not start in this process (was it initialised before a fork?)";
        default:
            return "";
    }
}

void check(cudaError_t e, const char* call) {
    if (e == cudaSuccess) return;
    cudaGetLastError();  // clear the sticky-free error so the next call starts clean
    std::string what = std::string(call) + ": " + cudaGetErrorString(e);
    std::string a = advice(e);
    throw std::runtime_error(a.empty() ? what : what + " (" + a + ")");
}

}  // namespace zc::cuda
