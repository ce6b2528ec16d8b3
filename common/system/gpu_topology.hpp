#pragma once
// The CUDA devices as topology entries (kind "gpu", name "cuda:N", PCI address from
// cudaDeviceGetPCIBusId, NUMA node and PCIe path from hwloc), and the memory types a host offers.
#include <string>
#include <vector>

#include "system/topology.hpp"

namespace zc::cuda {

std::vector<DeviceLocality> gpu_localities(const std::string& hwloc_xml = "");
// "host" always; "pinned" and "cuda:N" for each device when CUDA works here (the hello's capabilities).
std::vector<std::string> memory_types();

}  // namespace zc::cuda
