#include "memory/host_buffer.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "cuda/pinned_memory.hpp"
#include "memory/pattern.hpp"

namespace zc {

HostBuffer::HostBuffer(size_t size, size_t alignment, HostMemory memory) : size_(size) {
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    if (memory == HostMemory::pinned) {
        // cudaHostAlloc promises less than a page of alignment: over-allocate and align inside.
        size_t extra = alignment > 256 ? alignment : 0;
        pinned_base_ = cuda::pinned_alloc((size ? size : 1) + extra);
        auto addr = reinterpret_cast<uintptr_t>(pinned_base_);
        data_ = reinterpret_cast<std::byte*>((addr + alignment - 1) & ~(uintptr_t(alignment) - 1));
    } else {
        void* p = nullptr;
        if (posix_memalign(&p, alignment, size ? size : 1) != 0) throw std::bad_alloc();
        data_ = static_cast<std::byte*>(p);
    }
    // A recognisable, non-zero pattern: every page is faulted in now, and a receiver can spot it.
    fill_pattern(data_, size_, 0);
}

HostBuffer::HostBuffer(HostBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      pinned_base_(std::exchange(o.pinned_base_, nullptr)) {}

HostBuffer::~HostBuffer() {
    if (pinned_base_) {
        cuda::pinned_free(pinned_base_);
    } else {
        std::free(data_);
    }
}

}  // namespace zc
