#include "cuda/event.hpp"

#include <utility>

#include "cuda/cuda_check.hpp"

namespace zc::cuda {

Event::Event(bool timing) {
    check(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming),
          "cudaEventCreateWithFlags");
}

Event::Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}

Event::~Event() {
    if (e_) cudaEventDestroy(e_);
}

void Event::record(cudaStream_t s) { check(cudaEventRecord(e_, s), "cudaEventRecord"); }

bool Event::done() const {
    cudaError_t e = cudaEventQuery(e_);
    if (e == cudaErrorNotReady) return false;
    check(e, "cudaEventQuery");
    return true;
}

void Event::wait() const { check(cudaEventSynchronize(e_), "cudaEventSynchronize"); }

float Event::ms_since(const Event& start) const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start.e_, e_), "cudaEventElapsedTime");
    return ms;
}

}  // namespace zc::cuda
