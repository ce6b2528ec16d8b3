#pragma once
// The CUDA copy policy of the staging pipeline (memory/stage_ring.hpp): cudaMemcpyAsync on a stream
// of the ring's own, an event pair per slot (done = the slot is free again; the pair's elapsed time
// = the copy's GPU time). In a build without CUDA the stream's constructor throws saying so.
#include <vector>

#include "cuda/copy.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/event.hpp"
#include "cuda/stream.hpp"

namespace zc::cuda {

class CudaStageCopy {
public:
    static constexpr bool pinned_slots = true;
    static constexpr bool simulated = false;
    static constexpr const char* kName = "cudaMemcpyAsync";
    using Memory = DeviceBuffer;

    CudaStageCopy(int device, int slots) : device_(made_current(device)) {
        start_.reserve(static_cast<size_t>(slots));
        done_.reserve(static_cast<size_t>(slots));
        for (int i = 0; i < slots; ++i) {
            start_.emplace_back(true);
            done_.emplace_back(true);
        }
    }
    CudaStageCopy(const CudaStageCopy&) = delete;
    CudaStageCopy& operator=(const CudaStageCopy&) = delete;
    ~CudaStageCopy() {  // copies in flight write memory that is about to go
        try {
            stream_.synchronize();
        } catch (...) {}
    }

    static Memory allocate(int device, size_t bytes) { return DeviceBuffer(device, bytes); }
    static std::byte* data(const Memory& m) { return m.data(); }
    static size_t size(const Memory& m) { return m.size(); }
    static void zero(Memory& m) { cuda::zero(m.data(), m.allocated()); }
    static void read(void* host_dst, const void* src, size_t n) { copy(host_dst, src, n); }
    static void write(void* dst, const void* host_src, size_t n) { copy(dst, host_src, n); }

    void start(int i, void* dst, const void* src, size_t n) {
        start_[static_cast<size_t>(i)].record(stream_.get());
        copy_async(dst, src, n, stream_.get());
        done_[static_cast<size_t>(i)].record(stream_.get());
    }
    bool done(int i) const { return done_[static_cast<size_t>(i)].done(); }
    void wait(int i) { done_[static_cast<size_t>(i)].wait(); }
    uint64_t copy_ns(int i) const {
        return static_cast<uint64_t>(
            static_cast<double>(done_[static_cast<size_t>(i)].ms_since(start_[static_cast<size_t>(i)])) * 1e6);
    }
    void make_current() const { use_device(device_); }

private:
    static int made_current(int device) {
        use_device(device);
        return device;
    }
    int device_;
    Stream stream_;
    std::vector<Event> start_, done_;
};

}  // namespace zc::cuda
