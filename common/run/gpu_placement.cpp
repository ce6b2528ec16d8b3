#include "run/gpu_placement.hpp"

#include "cuda/device.hpp"
#include "system/cpu_list.hpp"
#include "system/pcie_relation.hpp"
#include "system/topology.hpp"
#include "socket/staged_stream.hpp"

namespace zc {

void place_gpu(Placement& p, const BufferSpec& buffer, const std::string& hwloc_xml) {
    if (!buffer.on_gpu()) return;
    GpuPlacement& g = p.gpu;
    g.device = buffer_spec_name(buffer);
    const auto& gpus = cuda::devices();
    if (buffer.device < 0 || buffer.device >= static_cast<int>(gpus.size())) return;  // the path's set-up says why
    const auto& info = gpus[static_cast<size_t>(buffer.device)];
    g.name = info.name;
    DeviceLocality loc = pci_locality("gpu", g.device, info.pci, hwloc_xml);
    g.pci = loc.pci;
    g.numa_node = loc.numa_node;
    g.pcie_path = loc.pcie_path;
    if (p.pci.empty()) {
        g.nic_relation = (p.interface.empty() ? std::string("the data's device") : p.interface) +
                         " is not a PCI device (loopback, veth): the data never crosses PCIe between NIC and GPU";
        return;
    }
    std::string nic_path = pci_locality("nic", p.interface, p.pci, hwloc_xml).pcie_path;
    PcieRelation r = pcie_relation(g.pcie_path, nic_path);
    g.nic_relation = describe(r, g.pcie_path, nic_path);
    g.shares_root_port = r.shares_root_port();
}

void note_gpu_placement(const Placement& p, const std::set<int>& cpu_nodes, std::vector<std::string>& warnings) {
    const GpuPlacement& g = p.gpu;
    if (g.device.empty()) return;
    if (!p.pci.empty() && !g.pcie_path.empty() && !g.shares_root_port) {
        warnings.push_back(g.device + " (" + g.pci + ") and " + p.interface + " (" + p.pci +
                           ") do not share a PCIe root port: " + g.nic_relation +
                           "; GPU<->NIC traffic takes the long way (GPUDirect RDMA may be slow or refused): pick a NIC "
                           "under the GPU's switch (zcperf --topology)");
    }
    if (g.numa_node >= 0 && !cpu_nodes.empty() && !cpu_nodes.count(g.numa_node)) {
        warnings.push_back(g.device + " sits on NUMA node " + std::to_string(g.numa_node) +
                           " but the data threads (and their "
                           "pinned bounce buffers) run on node(s) " +
                           format_cpu_list({cpu_nodes.begin(), cpu_nodes.end()}) +
                           ": every staged byte crosses the interconnect; pin with --cpu near the GPU");
    }
}

MemoryReport memory_report(const SideSpec& side, uint64_t message_size, const StagingCounts& staging) {
    MemoryReport m;
    m.buffer = buffer_spec_name(side.buffer);
    m.staging = staging;
    if (!side.buffer.gpu_like()) return m;
    // The socket paths (TCP, rsockets) can only stage.
    m.gpu_path = "staged";
    m.gpu_path_note = "staged: a socket copies through CPU-addressable pages";
    StageShape s = stage_shape(message_size);
    m.stage_slot_bytes = s.slot_bytes;
    m.stage_slots = s.slots;
    m.stage_batch = s.batch;
    return m;
}

}  // namespace zc
