// The CUDA layer in a build without the CUDA toolkit: nothing can be allocated, and every way in
// says so and what to do, so --buffer pinned|cuda fails clearly instead of silently using host memory.
#include <stdexcept>
#include <string>

#include "cuda/copy.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/dmabuf.hpp"
#include "cuda/event.hpp"
#include "cuda/pinned_memory.hpp"
#include "cuda/stream.hpp"

namespace zc::cuda {

namespace {
constexpr const char* kNoCuda =
    "this build of zcperf has no CUDA support (the CUDA toolkit was not found when it was built): install the "
    "toolkit (nvcc, cuda_runtime.h; e.g. in /usr/local/cuda), rebuild, and check that cmake says "
    "\"GPU buffers built\"; or use --buffer host";
[[noreturn]] void no_cuda() { throw std::runtime_error(kNoCuda); }
}  // namespace

bool built() { return false; }
const std::vector<GpuInfo>& devices() {
    static const std::vector<GpuInfo> none;
    return none;
}
std::string unavailable_reason() { return kNoCuda; }
void use_device(int) { no_cuda(); }

void* pinned_alloc(size_t) { throw std::runtime_error(std::string("pinned host memory needs CUDA, but ") + kNoCuda); }
void pinned_free(void*) noexcept {}

DeviceBuffer::DeviceBuffer(int, size_t) { no_cuda(); }
DeviceBuffer::DeviceBuffer(DeviceBuffer&&) noexcept {}
DeviceBuffer::~DeviceBuffer() {}

Stream::Stream() { no_cuda(); }
Stream::~Stream() {}
void Stream::synchronize() const {}

Event::Event(bool) { no_cuda(); }
Event::Event(Event&&) noexcept {}
Event::~Event() {}
void Event::record(cudaStream_t) {}
bool Event::done() const { return true; }
void Event::wait() const {}
float Event::ms_since(const Event&) const { return 0; }

void copy_async(void*, const void*, size_t, cudaStream_t) { no_cuda(); }
void copy(void*, const void*, size_t) { no_cuda(); }
void zero(void*, size_t) { no_cuda(); }

Dmabuf export_dmabuf(const DeviceBuffer&) {
    Dmabuf d;
    d.unavailable = kNoCuda;
    return d;
}

}  // namespace zc::cuda
