#include "run/build_info.hpp"

#include "cuda/device.hpp"
#include "core/transport_registry.hpp"

namespace zc {

std::string version_text(const char* program) {
    std::string built, missing;
    for (const auto& t : transport_table()) {
        std::string& list = t.built ? built : missing;
        list += (list.empty() ? "" : " ") + std::string(t.name);
    }
    std::string text = std::string(program) + " " ZCPERF_VERSION "\ntransports: " + built;
    if (!missing.empty()) text += "\nnot built: " + missing + " (configured without rdma-core)";
    text += cuda::built() ? "\ngpu buffers: CUDA (--buffer pinned|cuda)" : "\ngpu buffers: not built (no CUDA toolkit)";
#ifdef ZCPERF_MPI_BUILT
    text += "\nzcperf-mpi: built (many pairs at once under mpirun or srun)";
#else
    text += "\nzcperf-mpi: not built (no MPI at configure time: apt-get install libopenmpi-dev)";
#endif
    // The --html page inlines d3 and d3-flame-graph, so their licences travel with the binary too.
    text += "\nlicence: " ZCPERF_LICENSE
            " (the --html page inlines d3, ISC, and d3-flame-graph, Apache-2.0; "
            "notices: share/doc/zcperf/copyright)";
    return text;
}

}  // namespace zc
