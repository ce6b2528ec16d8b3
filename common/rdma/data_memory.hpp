#pragma once
// The memory an RDMA stream registers, and how GPU memory (--buffer cuda[:N]) meets the NIC:
//   host:   host (pageable or pinned) memory, data and control in one MR, as always.
//   direct: the data is GPU memory registered with ibv_reg_dmabuf_mr on the dmabuf the CUDA driver
//           exports for it (cuda/dmabuf.hpp): the NIC DMAs to and from GPU memory, no host copy.
//           The control area stays in a small host MR.
//   staged: the data MR is host memory (pinned, so the GPU's copy engine overlaps) holding bounce
//           slots; the data paths copy between them and GPU memory (rdma/verbs_stage.hpp).
// --gpu-path auto tries direct and stages when registration is refused, saying why ("direct
// refused: ibv_reg_dmabuf_mr: Operation not supported"); --gpu-path direct that cannot be honoured
// is an error; staged never tries. The test kind sim-gpu (host memory standing in for a GPU) has no
// dmabuf: its direct attempt hands ibv_reg_dmabuf_mr a memfd, so the refusal is the provider's and
// the kernel's real answer, and the fallback logic is tested where no GPU exists.
// Every object is owned here and released in reverse order: MRs, the dmabuf fd, GPU memory, host memory.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "cuda/device_buffer.hpp"
#include "core/buffer_spec.hpp"
#include "core/gpu_path.hpp"
#include "memory/host_buffer.hpp"
#include "rdma/resources.hpp"
#include "core/unique_fd.hpp"

namespace zc {

enum class DataMemoryMode { host, staged, direct };
const char* data_memory_mode_name(DataMemoryMode m);  // "host", "staged", "direct"

struct DataMemoryRequest {
    BufferSpec where;                // this side's --buffer
    GpuPath asked = GpuPath::auto_;  // this side's --gpu-path
    uint64_t data_bytes = 0;         // the data area (a sender's message, a receiver's ring)
    uint64_t staged_data_bytes = 0;  // the data area when staged (a sender's ring of bounce slots)
    uint64_t ctrl_bytes = 0;         // the control area (always host memory)
    size_t alignment = 4096;
    int access = 0;               // ibv access flags for both MRs
    bool passive_source = false;  // rdma-read's source: nothing of it runs while its memory is read
    std::string device;           // the RDMA device's name, for messages
};

class RdmaDataMemory {
public:
    // Allocates and registers; throws std::runtime_error saying what failed and what to do.
    RdmaDataMemory(ibv_pd* pd, const DataMemoryRequest& r);

    DataMemoryMode mode() const { return mode_; }
    const std::string& note() const { return note_; }  // why this mode ("direct refused: ...")
    std::byte* data() const { return data_; }          // a GPU address in direct mode: never dereference it then
    std::byte* ctrl() const { return ctrl_; }
    uint32_t data_lkey() const { return (data_mr_ ? data_mr_ : host_mr_)->lkey; }
    uint32_t data_rkey() const { return (data_mr_ ? data_mr_ : host_mr_)->rkey; }
    uint32_t ctrl_lkey() const { return host_mr_->lkey; }
    const HostBuffer& host() const { return *host_; }  // the host pages (data and/or control)
    double registration_ms() const { return registration_ms_; }
    uint64_t registered_bytes() const { return registered_bytes_; }
    // Direct mode, set-up and checks only: blocking copies to and from the GPU data memory.
    void write_data(uint64_t offset, const void* src, size_t n) const;
    void read_data(void* dst, uint64_t offset, size_t n) const;

private:
    std::string try_direct(ibv_pd* pd, const DataMemoryRequest& r);  // "" on success, else why not

    DataMemoryMode mode_ = DataMemoryMode::host;
    std::string note_;
    std::optional<HostBuffer> host_;         // host/staged: data + control; direct: control only
    std::optional<cuda::DeviceBuffer> gpu_;  // direct: the GPU data memory
    UniqueFd dmabuf_;                        // direct: its export (the MR holds its own reference)
    MemoryRegion host_mr_;
    MemoryRegion data_mr_;  // direct only
    std::byte* data_ = nullptr;
    std::byte* ctrl_ = nullptr;
    double registration_ms_ = 0;
    uint64_t registered_bytes_ = 0;
};

}  // namespace zc
