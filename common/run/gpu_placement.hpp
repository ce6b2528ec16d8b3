#pragma once
// A side's GPU in the report: which GPU holds the buffers, where it sits (PCI, NUMA node), and how
// it is connected to the device carrying the data; warnings when that costs (no common root port,
// another NUMA node than the data threads); and the memory section of the side's result.
#include <set>
#include <string>
#include <vector>

#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// Fills p.gpu when `buffer` is GPU memory; p.pci (the data device's PCI function) must be set.
void place_gpu(Placement& p, const BufferSpec& buffer, const std::string& hwloc_xml = "");
void note_gpu_placement(const Placement& p, const std::set<int>& cpu_nodes, std::vector<std::string>& warnings);
// The memory section as a socket path has it (GPU memory staged through CPU-addressable pages); a kind that
// registers GPU memory itself (verbs) says what its registration decided from its block's hook
// (MemoryReport::registered_gpu_path).
MemoryReport memory_report(const SideSpec& side, uint64_t message_size, const StagingCounts& staging);

}  // namespace zc
