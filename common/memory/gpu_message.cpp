#include "memory/gpu_message.hpp"

#include "cuda/copy.hpp"

namespace zc::cuda {

GpuMessage::GpuMessage(int device, size_t size, size_t alignment, Start start)
    : gpu_(device, size), ring_(device, size, 1, alignment) {
    if (start == Start::pattern)
        upload_pattern(ring_, gpu_.data(), size, size);
    else
        zero(gpu_.data(), gpu_.allocated());
    ring_.reset_counts();
}

const std::byte* GpuMessage::stage_out(size_t n) {
    ring_.fill_from_device(0, gpu_.data(), n);
    ring_.wait(0);
    return ring_.slot(0);
}

void GpuMessage::land(size_t n) {
    ring_.drain_to_device(0, gpu_.data(), n);
    ring_.wait(0);
}

}  // namespace zc::cuda
