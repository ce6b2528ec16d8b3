#include "core/buffer_spec.hpp"

#include <stdexcept>

namespace zc {

BufferSpec buffer_spec_from_name(const std::string& text) {
    if (text == "host") return {MemoryKind::host, 0};
    if (text == "pinned") return {MemoryKind::pinned, 0};
    if (text == "cuda") return {MemoryKind::cuda, 0};
    if (text == "sim-gpu") return {MemoryKind::sim_gpu, 0};  // tests only: not in --help
    if (text.rfind("cuda:", 0) == 0 && text.size() > 5 && text.size() <= 9) {
        int dev = 0;
        for (char c : text.substr(5)) {
            if (c < '0' || c > '9') dev = -1;
            if (dev >= 0) dev = dev * 10 + (c - '0');
        }
        if (dev >= 0 && dev < 4096) return {MemoryKind::cuda, dev};
    }
    throw std::invalid_argument(
        "unknown buffer memory '" + text +
        "'; use host (pageable), pinned (cudaHostAlloc) or cuda[:DEVICE] (GPU memory, e.g. cuda:0)");
}

std::string buffer_spec_name(const BufferSpec& b) {
    switch (b.kind) {
        case MemoryKind::host:
            return "host";
        case MemoryKind::pinned:
            return "pinned";
        case MemoryKind::cuda:
            return "cuda:" + std::to_string(b.device);
        case MemoryKind::sim_gpu:
            return "sim-gpu";
    }
    return "host";
}

}  // namespace zc
