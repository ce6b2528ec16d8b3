#pragma once
// A data buffer in host memory: aligned (page-sized by default) and touched before the measured
// interval so no page fault lands inside it.
#include <cstddef>

namespace zc {

class HostBuffer {
public:
    HostBuffer(size_t size, size_t alignment);
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    HostBuffer(HostBuffer&& o) noexcept;
    HostBuffer& operator=(HostBuffer&&) = delete;
    ~HostBuffer();

    std::byte* data() const { return data_; }
    size_t size() const { return size_; }

private:
    std::byte* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace zc
