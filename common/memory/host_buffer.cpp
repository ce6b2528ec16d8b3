#include "memory/host_buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace zc {

HostBuffer::HostBuffer(size_t size, size_t alignment) : size_(size) {
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    void* p = nullptr;
    if (posix_memalign(&p, alignment, size ? size : 1) != 0) throw std::bad_alloc();
    data_ = static_cast<std::byte*>(p);
    // A recognisable, non-zero pattern: every page is faulted in now, and a receiver can spot it.
    for (size_t i = 0; i < size_; ++i) data_[i] = static_cast<std::byte>('a' + i % 26);
}

HostBuffer::HostBuffer(HostBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

HostBuffer::~HostBuffer() { std::free(data_); }

}  // namespace zc
