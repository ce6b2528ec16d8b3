#include "cuda/dmabuf.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include "cuda/device.hpp"

namespace zc::cuda {

namespace {

using GetHandleFn = CUresult (*)(void*, CUdeviceptr, size_t, CUmemRangeHandleType, unsigned long long);
using GetAttributeFn = CUresult (*)(int*, CUdevice_attribute, CUdevice);
using ErrorStringFn = CUresult (*)(CUresult, const char**);

template <typename Fn>
Fn driver_entry(const char* name, unsigned version) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return reinterpret_cast<Fn>(fn);
}

std::string driver_error(CUresult r) {
    const char* s = nullptr;
    if (auto fn = driver_entry<ErrorStringFn>("cuGetErrorString", 6000); fn && fn(r, &s) == CUDA_SUCCESS && s) return s;
    return "CUresult " + std::to_string(static_cast<int>(r));
}

}  // namespace

Dmabuf export_dmabuf(const DeviceBuffer& buffer) {
    Dmabuf out;
    if (devices().empty()) {
        out.unavailable = unavailable_reason();
        return out;
    }
    auto get_handle = driver_entry<GetHandleFn>("cuMemGetHandleForAddressRange", 11070);
    if (!get_handle) {
        out.unavailable = "the NVIDIA driver has no cuMemGetHandleForAddressRange (it needs CUDA 11.7 or newer)";
        return out;
    }
    if (auto attr = driver_entry<GetAttributeFn>("cuDeviceGetAttribute", 2000)) {
        int supported = 0;
        if (attr(&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, buffer.device()) == CUDA_SUCCESS && !supported) {
            out.unavailable = "cuda:" + std::to_string(buffer.device()) +
                              " does not support dmabuf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0: needs the NVIDIA "
                              "open kernel module and Linux >= 5.12); use --gpu-path staged";
            return out;
        }
    }
    int fd = -1;
    CUresult r = get_handle(&fd, reinterpret_cast<CUdeviceptr>(buffer.data()), buffer.allocated(),
                            CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (r != CUDA_SUCCESS || fd < 0) {
        out.unavailable =
            "cuMemGetHandleForAddressRange(DMA_BUF_FD) refused: " + driver_error(r) + "; use --gpu-path staged";
        return out;
    }
    out.fd.reset(fd);
    out.length = buffer.allocated();
    return out;
}

}  // namespace zc::cuda
