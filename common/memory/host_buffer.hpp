#pragma once
// A data buffer in host memory: aligned (page-sized by default) and touched before the measured
// interval so no page fault lands inside it. Pageable (posix_memalign) or pinned (cudaHostAlloc:
// page-locked, so a GPU copy engine can DMA to and from it and cudaMemcpyAsync really overlaps).
#include <cstddef>

namespace zc {

enum class HostMemory { pageable, pinned };

class HostBuffer {
public:
    // Pinned memory needs CUDA: without it (or without a driver) this throws std::runtime_error
    // saying so.
    HostBuffer(size_t size, size_t alignment, HostMemory memory = HostMemory::pageable);
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    HostBuffer(HostBuffer&& o) noexcept;
    HostBuffer& operator=(HostBuffer&&) = delete;
    ~HostBuffer();

    std::byte* data() const { return data_; }
    size_t size() const { return size_; }
    bool pinned() const { return pinned_base_ != nullptr; }

private:
    std::byte* data_ = nullptr;
    size_t size_ = 0;
    void* pinned_base_ = nullptr;  // what cudaHostAlloc returned (data_ may be aligned above it)
};

}  // namespace zc
