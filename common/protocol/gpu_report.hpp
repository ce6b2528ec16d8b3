#pragma once
// What a side reports about its buffer memory: the kind (host, pinned, cuda:N), for GPU memory the
// staging's cost, and where the GPU sits relative to the data's network device. Part of SideResult
// (memory) and of its Placement (gpu).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/staging_counts.hpp"

namespace zc {

struct GpuPlacement {
    std::string device;        // "cuda:0"; "" when this side's buffers are not in GPU memory
    std::string name;          // "NVIDIA H200"
    std::string pci;           // from cudaDeviceGetPCIBusId
    int numa_node = -1;        // from hwloc; -1 unknown
    std::string pcie_path;     // host bridge down to the GPU
    std::string nic_relation;  // PCIe relation to the data's device, in words
    bool shares_root_port = false;
};

struct MemoryReport {
    std::string buffer = "host";    // host, pinned, cuda:N
    std::string gpu_path;           // "staged" or "direct" (verbs) for GPU memory; "" for host memory
    std::string gpu_path_note;      // why: "direct refused: ibv_reg_dmabuf_mr: Operation not supported", ...
    uint64_t stage_slot_bytes = 0;  // bounce slot size and count
    int stage_slots = 0;
    uint64_t stage_batch = 0;  // messages per copy (small messages are staged in batches)
    StagingCounts staging;     // summed over the streams

    bool staged() const { return staging.copies > 0 || !gpu_path.empty(); }
    // A kind that registers GPU memory itself (verbs), from its block's hook: what registration decided
    // (`path` "direct", or "staged" and why; "" leaves the socket paths' staging), one message per bounce
    // slot. Nothing for host memory (no gpu_path).
    void registered_gpu_path(const std::string& path, const std::string& note, uint32_t slots, uint64_t message_size);
};

nlohmann::json to_json(const GpuPlacement& g);
GpuPlacement gpu_placement_from_json(const nlohmann::json& j);  // throws ProtocolError
nlohmann::json to_json(const MemoryReport& m);                  // adds copy GB/s and seconds for readers
MemoryReport memory_report_from_json(const nlohmann::json& j);  // throws ProtocolError

}  // namespace zc
