#pragma once
// The pipeline core every staged data path shares (TCP, rsockets, verbs): a ring of host bounce
// slots and one copy in flight per slot between them and the "device" memory the data really lives
// in. A path queues a copy into (fill) or out of (drain) slot i, goes on with its network work, and
// waits for slot i's copy only when it needs that slot again; what the copies cost is counted.
//
// The copy engine is a policy (template parameter, resolved at compile time, no virtual call):
//   cuda::CudaStageCopy (cuda/stage_copy.hpp): cudaMemcpyAsync on the ring's own stream, an event
//     per slot; the device memory is cudaMalloc'd and the slots are pinned (cudaHostAlloc).
//   HostStageCopy (below): memcpy, done at once; the "device" memory is pageable host memory.
//     This is the hidden test memory kind sim-gpu: it runs the same pipelines where no GPU exists
//     (CI, the Soft-RoCE guest), so their logic is tested for real.
// Nothing here allocates after construction.
#include <cstddef>
#include <cstring>
#include <vector>

#include "memory/host_buffer.hpp"
#include "memory/pattern.hpp"
#include "core/staging_counts.hpp"
#include "core/stream_counters.hpp"

namespace zc {

// Staging with memcpy: the copy is done when start() returns; its duration is what it cost.
class HostStageCopy {
public:
    static constexpr bool pinned_slots = false;
    static constexpr bool simulated = true;  // the verbs sender poisons freed slots (verbs_stage.hpp)
    static constexpr const char* kName = "memcpy (sim-gpu: host memory standing in for a GPU)";
    using Memory = HostBuffer;  // the stand-in for GPU memory

    HostStageCopy(int /*device*/, int slots) : ns_(static_cast<size_t>(slots), 0) {}
    static Memory allocate(int /*device*/, size_t bytes) { return HostBuffer(bytes ? bytes : 1, 4096); }
    static std::byte* data(const Memory& m) { return m.data(); }
    static size_t size(const Memory& m) { return m.size(); }
    static void zero(Memory& m) { std::memset(m.data(), 0, m.size()); }
    static void read(void* host_dst, const void* src, size_t n) { std::memcpy(host_dst, src, n); }
    static void write(void* dst, const void* host_src, size_t n) { std::memcpy(dst, host_src, n); }

    void start(int i, void* dst, const void* src, size_t n) {
        int64_t t0 = monotonic_ns();
        std::memcpy(dst, src, n);
        ns_[static_cast<size_t>(i)] = static_cast<uint64_t>(monotonic_ns() - t0);
    }
    bool done(int) const { return true; }
    void wait(int) {}
    uint64_t copy_ns(int i) const { return ns_[static_cast<size_t>(i)]; }
    void make_current() const {}

private:
    std::vector<uint64_t> ns_;
};

// `slots` slots of `slot_bytes` each at `base` (memory the caller owns: its own bounce buffer, or
// the slots of a registered verbs MR), with the copy policy's state for each.
template <class Copy>
class StageRing {
public:
    StageRing(int device, std::byte* base, size_t slot_bytes, int slots)
        : copy_(device, slots), base_(base), slot_bytes_(slot_bytes), pending_(static_cast<size_t>(slots), 0) {}
    StageRing(const StageRing&) = delete;
    StageRing& operator=(const StageRing&) = delete;

    int slots() const { return static_cast<int>(pending_.size()); }
    size_t slot_bytes() const { return slot_bytes_; }
    std::byte* slot(int i) const { return base_ + static_cast<size_t>(i) * slot_bytes_; }

    // Queue device -> slot i, or slot i -> device; return at once. The slot must be free (waited).
    void fill_from_device(int i, const std::byte* device_src, size_t bytes) { queue(i, slot(i), device_src, bytes); }
    void drain_to_device(int i, std::byte* device_dst, size_t bytes) { queue(i, device_dst, slot(i), bytes); }
    bool pending(int i) const { return pending_[static_cast<size_t>(i)] != 0; }
    // Until slot i's copy (if any) is done; its copy time and our wait are added to the counts.
    void wait(int i) {
        if (!pending_[static_cast<size_t>(i)]) return;
        if (!copy_.done(i)) {
            int64_t t0 = monotonic_ns();
            copy_.wait(i);
            counts_.wait_ns += static_cast<uint64_t>(monotonic_ns() - t0);
        }
        counts_.copy_ns += copy_.copy_ns(i);
        pending_[static_cast<size_t>(i)] = 0;
    }
    void wait_all() {
        for (int i = 0; i < slots(); ++i) wait(i);
    }
    const StagingCounts& counts() const { return counts_; }
    void reset_counts() { counts_ = {}; }  // after set-up copies, before the measured interval
    Copy& copier() { return copy_; }

private:
    void queue(int i, void* dst, const void* src, size_t bytes) {
        copy_.start(i, dst, src, bytes);
        pending_[static_cast<size_t>(i)] = 1;
        counts_.bytes += bytes;
        ++counts_.copies;
    }

    Copy copy_;  // first: a CUDA policy makes its device current before anything else
    std::byte* base_;
    size_t slot_bytes_;
    std::vector<char> pending_;
    StagingCounts counts_;
};

// A ring that owns its slots: pinned host memory for the CUDA policy (so the copies overlap),
// pageable for the host one. The memory outlives the copies (the ring, declared after, goes first).
template <class Copy>
class OwnedStageRing {
public:
    OwnedStageRing(int device, size_t slot_bytes, int slots, size_t alignment)
        : slot_bytes_((slot_bytes + alignment - 1) / alignment * alignment),
          host_(slot_bytes_ * static_cast<size_t>(slots), alignment,
                Copy::pinned_slots ? HostMemory::pinned : HostMemory::pageable),
          ring_(device, host_.data(), slot_bytes_, slots) {}
    ~OwnedStageRing() {
        try {
            ring_.wait_all();
        } catch (...) {}
    }

    int slots() const { return ring_.slots(); }
    size_t slot_bytes() const { return ring_.slot_bytes(); }
    std::byte* slot(int i) const { return ring_.slot(i); }
    const HostBuffer& host() const { return host_; }  // all slots, for reading back where the pages are
    void fill_from_device(int i, const std::byte* src, size_t n) { ring_.fill_from_device(i, src, n); }
    void drain_to_device(int i, std::byte* dst, size_t n) { ring_.drain_to_device(i, dst, n); }
    void wait(int i) { ring_.wait(i); }
    void wait_all() { ring_.wait_all(); }
    const StagingCounts& counts() const { return ring_.counts(); }
    void reset_counts() { ring_.reset_counts(); }
    Copy& copier() { return ring_.copier(); }

private:
    size_t slot_bytes_;
    HostBuffer host_;
    StageRing<Copy> ring_;
};

// Fills device memory with a data pattern (by default memory/pattern.hpp's; the RDMA paths pass
// rdma/wire.hpp's) repeated every `period` bytes (one message), chunk by chunk through slot 0 of the
// ring (set-up: waits for each copy).
inline std::byte default_pattern(uint64_t offset) { return pattern_byte(offset); }

template <class Ring, class Pattern = std::byte (*)(uint64_t)>
void upload_pattern(Ring& ring, std::byte* device_dst, size_t bytes, size_t period, Pattern pattern = default_pattern) {
    ring.wait_all();
    for (size_t off = 0; off < bytes;) {
        size_t n = ring.slot_bytes() < bytes - off ? ring.slot_bytes() : bytes - off;
        for (size_t i = 0; i < n; ++i) ring.slot(0)[i] = static_cast<std::byte>(pattern((off + i) % period));
        ring.drain_to_device(0, device_dst + off, n);
        ring.wait(0);
        off += n;
    }
}

}  // namespace zc
