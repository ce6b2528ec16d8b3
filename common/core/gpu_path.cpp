#include "core/gpu_path.hpp"

#include <stdexcept>

namespace zc {

GpuPath gpu_path_from_name(const std::string& name) {
    if (name == "auto") return GpuPath::auto_;
    if (name == "staged") return GpuPath::staged;
    if (name == "direct") return GpuPath::direct;
    throw std::invalid_argument("unknown GPU path '" + name +
                                "'; use staged (through pinned host bounce buffers), direct (GPUDirect RDMA, "
                                "verbs transports only) or auto");
}

const char* gpu_path_name(GpuPath p) {
    switch (p) {
        case GpuPath::auto_:
            return "auto";
        case GpuPath::staged:
            return "staged";
        case GpuPath::direct:
            return "direct";
    }
    return "auto";
}

GpuPath resolve_gpu_path(GpuPath asked, bool can_dma, const std::string& transport, bool kernel_tcp) {
    if (asked == GpuPath::direct && !can_dma) {
        throw std::invalid_argument(transport + " cannot DMA into GPU memory (" +
                                    (kernel_tcp ? "TCP copies through CPU-addressable pages"
                                                : "this path does not register GPU memory with the NIC") +
                                    "); use --gpu-path staged (or auto)");
    }
    if (asked == GpuPath::auto_) return can_dma ? GpuPath::direct : GpuPath::staged;
    return asked;
}

}  // namespace zc
