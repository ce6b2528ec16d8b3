// PCI address normalisation: pure string work, built with or without CUDA.
#include <cctype>
#include <cstdio>

#include "cuda/device.hpp"

namespace zc::cuda {

std::string normalise_pci(const std::string& bus_id) {
    for (char c : bus_id)
        if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return "";
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    char tail = 0;
    if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &tail) != 4) return "";
    if (domain > 0xffff || bus > 0xff || dev > 0x1f || fn > 7) return "";
    char out[16];
    std::snprintf(out, sizeof(out), "%04x:%02x:%02x.%x", domain, bus, dev, fn);
    return out;
}

}  // namespace zc::cuda
