#pragma once
// Memory of one CUDA device (cudaMalloc), freed with the object. Sized up to whole 2 MiB GPU pages
// so the range can be exported as a dmabuf for the NIC (cuMemGetHandleForAddressRange wants it so).
#include <cstddef>

namespace zc::cuda {

class DeviceBuffer {
public:
    DeviceBuffer(int device, size_t size);  // makes `device` current for the calling thread
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&&) = delete;
    ~DeviceBuffer();

    std::byte* data() const { return data_; }        // a device address: never dereference it on the CPU
    size_t size() const { return size_; }            // what was asked for
    size_t allocated() const { return allocated_; }  // rounded up to whole GPU pages
    int device() const { return device_; }

private:
    std::byte* data_ = nullptr;
    size_t size_ = 0;
    size_t allocated_ = 0;
    int device_ = 0;
};

}  // namespace zc::cuda
