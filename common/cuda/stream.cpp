#include "cuda/stream.hpp"

#include "cuda/cuda_check.hpp"

namespace zc::cuda {

Stream::Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }

Stream::~Stream() {
    if (s_) cudaStreamDestroy(s_);
}

void Stream::synchronize() const { check(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

}  // namespace zc::cuda
