#include "cuda/device.hpp"

#include <mutex>
#include <stdexcept>

#include "cuda/cuda_check.hpp"

namespace zc::cuda {

namespace {

struct Probe {
    std::vector<GpuInfo> gpus;
    std::string reason;
};

// Once per process: the first CUDA call starts the driver (hundreds of ms), and the answer does not change.
const Probe& probe() {
    static Probe p;
    static std::once_flag once;
    std::call_once(once, [] {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) {
            cudaGetLastError();
            p.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
            if (auto a = advice(e); !a.empty()) p.reason += " (" + a + ")";
            return;
        }
        for (int i = 0; i < n; ++i) {
            cudaDeviceProp prop{};
            if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
            char bus[32] = {};
            cudaDeviceGetPCIBusId(bus, sizeof(bus), i);
            p.gpus.push_back({i, prop.name, normalise_pci(bus), prop.totalGlobalMem});
        }
        if (p.gpus.empty()) p.reason = "no CUDA device found (cudaGetDeviceCount returned 0)";
    });
    return p;
}

}  // namespace

bool built() { return true; }
const std::vector<GpuInfo>& devices() { return probe().gpus; }
std::string unavailable_reason() { return probe().reason; }

void use_device(int device) {
    const Probe& p = probe();
    if (p.gpus.empty()) throw std::runtime_error("GPU memory was asked for, but " + p.reason);
    if (device < 0 || device >= static_cast<int>(p.gpus.size())) {
        throw std::runtime_error("CUDA device " + std::to_string(device) + " does not exist here: there are " +
                                 std::to_string(p.gpus.size()) + " (cuda:0..cuda:" + std::to_string(p.gpus.size() - 1) +
                                 ")");
    }
    check(cudaSetDevice(device), "cudaSetDevice");
}

}  // namespace zc::cuda
