#include "core/buffer_spec.hpp"

#include <stdexcept>

namespace zc {

BufferSpec buffer_spec_from_name(const std::string& text) {
    if (text == "host") return {MemoryKind::host, 0};
    if (text == "pinned") return {MemoryKind::pinned, 0};
    if (text == "cuda") return {MemoryKind::cuda, 0};
    if (text == "sim-gpu") return {MemoryKind::sim_gpu, 0};  // tests only: not in --help
    if (text == "cuda:local") return {MemoryKind::cuda, 0, 1};
    if (text.rfind("cuda:local:", 0) == 0 && text.size() > 11 && text.size() <= 14 &&
        text.find_first_not_of("0123456789", 11) == std::string::npos) {
        int k = std::stoi(text.substr(11));
        if (k >= 1) return {MemoryKind::cuda, 0, k};
    }
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
        "'; use host (pageable), pinned (cudaHostAlloc) or cuda[:DEVICE] (GPU memory, e.g. cuda:0); zcperf-mpi also "
        "takes cuda:local[:K] (K local ranks per GPU)");
}

std::string buffer_spec_name(const BufferSpec& b) {
    switch (b.kind) {
        case MemoryKind::host:
            return "host";
        case MemoryKind::pinned:
            return "pinned";
        case MemoryKind::cuda:
            if (b.per_local_rank())
                return b.local_ranks_per_gpu == 1 ? "cuda:local"
                                                  : "cuda:local:" + std::to_string(b.local_ranks_per_gpu);
            return "cuda:" + std::to_string(b.device);
        case MemoryKind::sim_gpu:
            return "sim-gpu";
    }
    return "host";
}

BufferSpec resolve_local_rank(const BufferSpec& b, int local_rank, int gpus) {
    if (!b.per_local_rank()) return b;
    if (gpus <= 0) {
        throw std::invalid_argument("--buffer " + buffer_spec_name(b) + ": local rank " + std::to_string(local_rank) +
                                    "'s host has no CUDA GPU (or this build has no CUDA); use host memory there");
    }
    return {MemoryKind::cuda, (local_rank / b.local_ranks_per_gpu) % gpus, 0};
}

}  // namespace zc
