#include "gpu_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "memory/copy_bandwidth.hpp"
#include "cuda/device.hpp"

namespace zc {

int write_gpu_copy_bandwidth(std::ostream& out, std::ostream& err, const std::string& format) {
    const auto& gpus = cuda::devices();
    if (gpus.empty()) {
        err << "zcperf: --gpu-copy-bandwidth: " << cuda::unavailable_reason() << "\n";
        return 1;
    }
    const bool json = format == "json";
    nlohmann::json all = nlohmann::json::array();
    for (const auto& g : gpus) {
        cuda::CopyBandwidth b;
        try {
            b = cuda::measure_copy_bandwidth(g.index);
        } catch (const std::exception& e) {
            err << "zcperf: cuda:" << g.index << ": " << e.what() << "\n";
            return 1;
        }
        if (json) {
            all.push_back({{"device", "cuda:" + std::to_string(g.index)},
                           {"name", g.name},
                           {"pci", g.pci},
                           {"bytes_per_copy", b.bytes},
                           {"repeats", b.repeats},
                           {"h2d_pinned_gbs", b.h2d_pinned_gbs},
                           {"d2h_pinned_gbs", b.d2h_pinned_gbs},
                           {"h2d_pageable_gbs", b.h2d_pageable_gbs},
                           {"d2h_pageable_gbs", b.d2h_pageable_gbs}});
        } else {
            out << fmt::format("cuda:{} {} ({}): cudaMemcpy of {} MiB x {}, GB/s (1e9 B/s) = Gb/s / 8\n", g.index,
                               g.name, g.pci, b.bytes >> 20, b.repeats);
            out << fmt::format("  pinned    H2D {:7.2f} GB/s ({:6.1f} Gb/s)   D2H {:7.2f} GB/s ({:6.1f} Gb/s)\n",
                               b.h2d_pinned_gbs, b.h2d_pinned_gbs * 8, b.d2h_pinned_gbs, b.d2h_pinned_gbs * 8);
            out << fmt::format("  pageable  H2D {:7.2f} GB/s ({:6.1f} Gb/s)   D2H {:7.2f} GB/s ({:6.1f} Gb/s)\n",
                               b.h2d_pageable_gbs, b.h2d_pageable_gbs * 8, b.d2h_pageable_gbs, b.d2h_pageable_gbs * 8);
        }
    }
    if (json) out << nlohmann::json{{"gpu_copy_bandwidth", all}}.dump(2) << "\n";
    return 0;
}

std::string remote_memory_problem(const HostInfo& server, const BufferSpec& wanted) {
    if (!wanted.needs_cuda()) return "";
    std::string name = buffer_spec_name(wanted);
    const auto& types = server.memory_types;
    if (std::find(types.begin(), types.end(), name) != types.end()) return "";
    std::string offered;
    for (const auto& t : types) offered += (offered.empty() ? "" : ", ") + t;
    return fmt::format(
        "the server {} offers buffer memory {} but not {} (--buffer ...,{}): it has no CUDA device there, "
        "was built without CUDA, or has fewer GPUs; choose one it offers",
        server.hostname, offered.empty() ? "(none listed)" : offered, name, name);
}

}  // namespace zc
