#pragma once
// How GPU memory meets the network. staged: through pinned host bounce buffers, the GPU's copy
// engine overlapped with the transfer (works with any transport). direct: the NIC DMAs to and from
// GPU memory itself (GPUDirect RDMA, a dmabuf registered with ibv_reg_dmabuf_mr): verbs only.
// auto: direct where the transport and the machine can, else staged.
#include <string>

namespace zc {

enum class GpuPath { auto_, staged, direct };

GpuPath gpu_path_from_name(const std::string& name);  // throws std::invalid_argument listing the choices
const char* gpu_path_name(GpuPath p);

// The path a side really takes for GPU memory on a transport. A kernel TCP socket (kernel_tcp: its row's
// tcp_sockets) can only stage (the kernel's socket code copies through CPU-addressable pages); a transport that
// can register GPU memory with the NIC passes can_dma = true. Throws std::invalid_argument for an impossible
// request.
GpuPath resolve_gpu_path(GpuPath asked, bool can_dma, const std::string& transport, bool kernel_tcp);

}  // namespace zc
