#include "cuda/bounce_ring.hpp"

#include <algorithm>

#include "cuda/copy.hpp"
#include "cuda/device.hpp"
#include "memory/pattern.hpp"
#include "transport/stream_counters.hpp"

namespace zc::cuda {

namespace {
int made_current(int device) {
    use_device(device);
    return device;
}
}  // namespace

BounceRing::BounceRing(int device, size_t slot_bytes, int slots, size_t alignment)
    : device_(made_current(device)),
      slot_bytes_((slot_bytes + alignment - 1) / alignment * alignment),
      host_(slot_bytes_ * static_cast<size_t>(slots), alignment, HostMemory::pinned),
      pending_(static_cast<size_t>(slots), 0) {
    start_.reserve(pending_.size());
    done_.reserve(pending_.size());
    for (int i = 0; i < slots; ++i) {
        start_.emplace_back(true);
        done_.emplace_back(true);
    }
}

BounceRing::~BounceRing() {
    try {
        stream_.synchronize();
    } catch (...) {
    }
}

void BounceRing::queue(int i, void* dst, const void* src, size_t bytes) {
    start_[i].record(stream_.get());
    copy_async(dst, src, bytes, stream_.get());
    done_[i].record(stream_.get());
    pending_[i] = 1;
    counts_.bytes += bytes;
    ++counts_.copies;
}

void BounceRing::wait(int i) {
    if (!pending_[i]) return;
    if (!done_[i].done()) {
        int64_t t0 = monotonic_ns();
        done_[i].wait();
        counts_.wait_ns += static_cast<uint64_t>(monotonic_ns() - t0);
    }
    counts_.copy_ns += static_cast<uint64_t>(static_cast<double>(done_[i].ms_since(start_[i])) * 1e6);
    pending_[i] = 0;
}

void BounceRing::wait_all() {
    for (int i = 0; i < slots(); ++i) wait(i);
}

void upload_pattern(BounceRing& ring, std::byte* device_dst, size_t bytes, size_t period) {
    ring.wait_all();
    for (size_t off = 0; off < bytes;) {
        size_t n = std::min(ring.slot_bytes(), bytes - off);
        for (size_t i = 0; i < n; ++i) ring.slot(0)[i] = pattern_byte((off + i) % period);
        ring.drain_to_device(0, device_dst + off, n);
        ring.wait(0);
        off += n;
    }
}

}  // namespace zc::cuda
