#pragma once
// Where a side's data buffers live: pageable host memory (the default), pinned host memory
// (cudaHostAlloc'd: page-locked, what a GPU's copy engine reads and writes directly), or the memory
// of one CUDA device. Per side, like --cpu: "--buffer cuda:0,host" = local on GPU 0, remote host.
#include <string>

namespace zc {

enum class MemoryKind { host, pinned, cuda };

struct BufferSpec {
    MemoryKind kind = MemoryKind::host;
    int device = 0;  // CUDA device index, for MemoryKind::cuda

    bool on_gpu() const { return kind == MemoryKind::cuda; }
    bool needs_cuda() const { return kind != MemoryKind::host; }
    bool operator==(const BufferSpec&) const = default;
};

// "host", "pinned", "cuda", "cuda:1". Throws std::invalid_argument saying what is accepted.
BufferSpec buffer_spec_from_name(const std::string& text);
std::string buffer_spec_name(const BufferSpec& b);  // the same forms: "host", "pinned", "cuda:0"

}  // namespace zc
