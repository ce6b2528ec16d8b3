#pragma once
// One stream's socket loop for the side's memory kind, chosen once when the stream is set up (UCX
// perftest's allocator table is the model): host and pinned memory go to the socket calls in place
// (the host loop); GPU memory is staged through pinned bounce slots by the CUDA copy engine; sim-gpu
// (a test kind) runs the same staged loop with memcpy. Every socket transport's sender and receiver
// picks its loop here; the capability rules (kind/spec_rules.cpp) refused what its row does not take.
#include <stdexcept>
#include <type_traits>

#include "core/buffer_spec.hpp"
#include "core/stream_loop.hpp"
#include "memory/host_buffer.hpp"
#include "socket/staged_stream.hpp"

namespace zc {

// Host: the loop on host memory, built from (fd, message size, alignment[, HostMemory]); Staged<Copy>:
// the staged loop for a copy policy, built from (fd, message size, alignment, device).
template <class Host, template <class Copy> class Staged>
void emplace_stream_loop(StreamLoop& loop, const BufferSpec& b, int fd, size_t message_size, size_t alignment) {
    switch (b.kind) {
        case MemoryKind::host:
        case MemoryKind::pinned:
            if constexpr (std::is_constructible_v<Host, int, size_t, size_t, HostMemory>) {
                loop.emplace<Host>(fd, message_size, alignment,
                                   b.kind == MemoryKind::pinned ? HostMemory::pinned : HostMemory::pageable);
            } else {
                if (b.kind == MemoryKind::pinned) throw std::logic_error("this socket loop takes no pinned memory");
                loop.emplace<Host>(fd, message_size, alignment);
            }
            return;
        case MemoryKind::cuda:
            loop.emplace<Staged<cuda::CudaStageCopy>>(fd, message_size, alignment, b.device);
            return;
        case MemoryKind::sim_gpu:
            loop.emplace<Staged<HostStageCopy>>(fd, message_size, alignment, 0);
            return;
    }
    throw std::logic_error("emplace_stream_loop: unknown memory kind");
}

}  // namespace zc
