#pragma once
// A CUDA stream of our own (non-blocking: it never waits for the legacy default stream), so a
// side's copies queue behind nothing but each other.
#include "cuda/cuda_types.hpp"

namespace zc::cuda {

class Stream {
public:
    Stream();  // on the calling thread's current device
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream();

    cudaStream_t get() const { return s_; }
    void synchronize() const;

private:
    cudaStream_t s_ = nullptr;
};

}  // namespace zc::cuda
