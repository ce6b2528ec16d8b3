#include "system/gpu_topology.hpp"

#include "cuda/device.hpp"

namespace zc::cuda {

std::vector<DeviceLocality> gpu_localities(const std::string& hwloc_xml) {
    std::vector<DeviceLocality> out;
    for (const auto& g : devices())
        out.push_back(pci_locality("gpu", "cuda:" + std::to_string(g.index), g.pci, hwloc_xml));
    return out;
}

std::vector<std::string> memory_types() {
    std::vector<std::string> out{"host"};
    if (devices().empty()) return out;
    out.push_back("pinned");
    for (const auto& g : devices()) out.push_back("cuda:" + std::to_string(g.index));
    return out;
}

}  // namespace zc::cuda
