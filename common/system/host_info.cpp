#include "system/host_info.hpp"

#include <numa.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include "system/gpu_topology.hpp"
#include "system/affinity.hpp"
#include "core/transport_registry.hpp"

namespace zc {

std::string read_boot_id() {
    std::string id;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> id;
    return id;
}

HostInfo probe_host(GpuProbe gpus) {
    HostInfo h;
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    h.hostname = name;
    utsname u{};
    if (uname(&u) == 0) h.kernel = u.release;
    h.boot_id = read_boot_id();
    h.pid = getpid();
    h.cpus = allowed_cpus();
    if (numa_available() >= 0) {
        for (int n = 0; n <= numa_max_node(); ++n)
            if (numa_bitmask_isbitset(numa_nodes_ptr, n)) h.numa_nodes.push_back(n);
    } else {
        h.numa_nodes.push_back(0);
    }
    h.transports = available_transports();
    h.topology = read_topology();
    if (gpus == GpuProbe::without_gpus) {
        h.memory_types = {"host"};
        return h;
    }
    h.memory_types = cuda::memory_types();
    for (auto& g : cuda::gpu_localities()) h.topology.devices.push_back(std::move(g));
    return h;
}

}  // namespace zc
