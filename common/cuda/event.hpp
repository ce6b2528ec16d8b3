#pragma once
// A CUDA event: recorded on a stream after a copy, it says when the copy is done (without waiting
// for the whole stream) and, with timing on, how long the GPU spent between two of them.
#include "cuda/cuda_types.hpp"

namespace zc::cuda {

class Event {
public:
    explicit Event(bool timing = false);
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& o) noexcept;
    Event& operator=(Event&&) = delete;
    ~Event();

    void record(cudaStream_t s);
    bool done() const;  // cudaEventQuery: true once everything before the record has run
    void wait() const;  // cudaEventSynchronize
    // GPU time from `start` to this event, both recorded with timing on and both done.
    float ms_since(const Event& start) const;

private:
    cudaEvent_t e_ = nullptr;
};

}  // namespace zc::cuda
