#pragma once
// The hook for GPUDirect RDMA (--gpu-path direct on verbs transports): a GPU allocation exported
// as a dmabuf file descriptor, which ibv_reg_dmabuf_mr(pd, offset, length, iova, fd, access)
// registers with the NIC so it DMAs into GPU memory with no host copy. This needs the NVIDIA open
// kernel module (or a driver with dmabuf support), Linux >= 5.12 and a GPU that supports it; when
// any is missing the export says why instead of failing later inside the verbs call.
#include <cstddef>
#include <string>

#include "cuda/device_buffer.hpp"
#include "core/unique_fd.hpp"

namespace zc::cuda {

struct Dmabuf {
    UniqueFd fd;              // valid on success; closing it does not free the GPU memory
    size_t offset = 0;        // where the buffer starts inside the dmabuf (ibv_reg_dmabuf_mr's offset)
    size_t length = 0;        // bytes exported (whole GPU pages)
    std::string unavailable;  // why there is no fd (no CUDA, no driver support, refused, ...)
};

// Exports the whole allocation (cuMemGetHandleForAddressRange, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
// reached through cudaGetDriverEntryPointByVersion so the binary never links libcuda itself).
Dmabuf export_dmabuf(const DeviceBuffer& buffer);

}  // namespace zc::cuda
