#include "cuda/device_buffer.hpp"

#include <algorithm>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"

namespace zc::cuda {

namespace {
constexpr size_t kGpuPage = 2u << 20;
}

DeviceBuffer::DeviceBuffer(int device, size_t size) : size_(size), device_(device) {
    use_device(device);
    allocated_ = (std::max<size_t>(size, 1) + kGpuPage - 1) / kGpuPage * kGpuPage;
    void* p = nullptr;
    check(cudaMalloc(&p, allocated_), "cudaMalloc");
    data_ = static_cast<std::byte*>(p);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      allocated_(std::exchange(o.allocated_, 0)),
      device_(o.device_) {}

DeviceBuffer::~DeviceBuffer() {
    if (data_) cudaFree(data_);
}

}  // namespace zc::cuda
