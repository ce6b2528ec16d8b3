#pragma once
// Where a side's data buffers live: pageable host memory (the default), pinned host memory
// (cudaHostAlloc'd: page-locked, what a GPU's copy engine reads and writes directly), or the memory
// of one CUDA device. Per side, like --cpu: "--buffer cuda:0,host" = local on GPU 0, remote host.
// sim-gpu is a hidden test kind: pageable host memory standing in for GPU memory, staged with
// memcpy through the same pipelines as GPU memory (memory/stage_ring.hpp), so those pipelines are
// tested where no GPU exists (CI, the Soft-RoCE guest). It is never a measurement of a GPU.
#include <string>

namespace zc {

enum class MemoryKind { host, pinned, cuda, sim_gpu };

struct BufferSpec {
    MemoryKind kind = MemoryKind::host;
    int device = 0;  // CUDA device index, for MemoryKind::cuda
    // zcperf-mpi's cuda:local[:K]: the device is chosen per rank, (local rank / K) mod the host's GPUs,
    // by resolve_local_rank() before a test is set up; 0 = the device above is meant.
    int local_ranks_per_gpu = 0;

    bool on_gpu() const { return kind == MemoryKind::cuda; }
    bool simulated() const { return kind == MemoryKind::sim_gpu; }
    // Memory the network cannot reach as it is: staged (or, on verbs, registered through a dmabuf).
    bool gpu_like() const { return on_gpu() || simulated(); }
    bool needs_cuda() const { return kind == MemoryKind::pinned || kind == MemoryKind::cuda; }
    bool per_local_rank() const { return local_ranks_per_gpu > 0; }
    bool operator==(const BufferSpec&) const = default;
};

// "host", "pinned", "cuda", "cuda:1", "cuda:local", "cuda:local:2" (and the hidden "sim-gpu"). Throws
// std::invalid_argument saying what is accepted.
BufferSpec buffer_spec_from_name(const std::string& text);
std::string buffer_spec_name(const BufferSpec& b);  // the same forms: "host", "pinned", "cuda:0", "cuda:local:2"

// cuda:local[:K] on a rank with this local rank on a host with `gpus` GPUs: cuda:((local_rank / K) % gpus).
// Other specs are returned as they are. Throws std::invalid_argument when the host has no GPU.
BufferSpec resolve_local_rank(const BufferSpec& b, int local_rank, int gpus);

}  // namespace zc
