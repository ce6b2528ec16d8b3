#include <cstdio>
#include <cstdlib>

#include "socket/staged_stream_impl.hpp"
#include "core/units.hpp"

namespace zc {

namespace {
constexpr size_t kSlotBytes = 1u << 20;
constexpr size_t kBatchBytes = 256u << 10;
constexpr int kSlots = 4;

size_t env_size(const char* name, size_t fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    try {
        return static_cast<size_t>(parse_size(v));
    } catch (...) {
        return fallback;
    }
}
}  // namespace

// A CUDA call failed inside a loop (the GPU fell off the bus, a driver error): the stream ends with
// an error the side reports, as a failed send() would, instead of an exception on a data thread.
void stage_failed(StreamCounters& c, const std::exception& e) {
    std::fprintf(stderr, "zcperf: GPU staging failed: %s\n", e.what());
    c.error = EIO;
    c.failed_call = "the GPU staging copy (cudaMemcpyAsync/cudaEventSynchronize; the CUDA error is on stderr)";
}

StageShape stage_shape(size_t message_size) {
    size_t piece = std::clamp<size_t>(env_size("ZCPERF_STAGE_CHUNK", kSlotBytes), 4096, 1u << 30);
    int slots = static_cast<int>(std::clamp<size_t>(env_size("ZCPERF_STAGE_SLOTS", kSlots), 2, 64));
    size_t m = std::max<size_t>(message_size, 1);
    if (m >= piece) return {piece, slots, 1};
    size_t batch = std::max<size_t>(1, std::min(kBatchBytes, piece) / m);
    return {batch * m, slots, batch};
}

template class StagedStreamSender<KernelSockets, cuda::CudaStageCopy>;
template class StagedStreamReceiver<KernelSockets, cuda::CudaStageCopy>;
template class StagedStreamSender<KernelSockets, HostStageCopy>;
template class StagedStreamReceiver<KernelSockets, HostStageCopy>;

}  // namespace zc
