#pragma once
// The CUDA devices this process can use, and selecting one for the calling thread.
#include <cstdint>
#include <string>
#include <vector>

namespace zc::cuda {

struct GpuInfo {
    int index = 0;     // CUDA's device number (cuda:N), as CUDA_VISIBLE_DEVICES leaves them
    std::string name;  // "NVIDIA H200"
    std::string pci;   // 0000:19:00.0, the form sysfs uses
    uint64_t memory_bytes = 0;
};

// This binary was built with the CUDA toolkit.
bool built();
// Never throws: empty without CUDA, a driver or a device (unavailable_reason() says which).
const std::vector<GpuInfo>& devices();
std::string unavailable_reason();  // "" when devices() is not empty
// Makes `device` current for the calling thread; throws std::runtime_error saying what to do when it
// does not exist or CUDA cannot start.
void use_device(int device);

// "0000:19:00.0" from CUDA's "00000000:19:00.0" or upper-case forms; "" if it is not a PCI address.
std::string normalise_pci(const std::string& bus_id);

}  // namespace zc::cuda
