#pragma once
// --samples: every rr transaction's start and latency, kept for a person to plot or test. The buffer is
// allocated and touched before the timed loop, so add() is a compare and two stores: no allocation, no
// system call, no page fault. A full buffer counts what it drops (the report says so), never grows.
#include <cstdint>
#include <memory>

namespace zc {

class LatencySamples {
public:
    struct Sample {
        int64_t start_ns;     // CLOCK_MONOTONIC as the request went out
        uint64_t latency_ns;  // request out to response in
    };
    // Sizing: a transaction per microsecond per stream for the test's length (faster than any rr path
    // zcperf has measured: RDMA's ~2 us RTT), at most kMaxPerStream (16 B each: 256 MiB).
    static constexpr uint64_t kPerSecond = 1'000'000;
    static constexpr uint64_t kMaxPerStream = uint64_t{1} << 24;
    static uint64_t capacity_for(double duration_s);  // duration_s <= 0 (a byte-count test): kMaxPerStream

    explicit LatencySamples(uint64_t capacity);  // allocates and zero-fills capacity samples

    void add(int64_t start_ns, uint64_t latency_ns) {
        if (kept_ < capacity_)
            buffer_[kept_++] = {start_ns, latency_ns};
        else
            ++dropped_;
    }
    // The measured interval's start (CLOCK_MONOTONIC): the file gives each start relative to it.
    void start_at(int64_t origin_ns) { origin_ns_ = origin_ns; }

    uint64_t capacity() const { return capacity_; }
    uint64_t kept() const { return kept_; }
    uint64_t dropped() const { return dropped_; }
    int64_t origin_ns() const { return origin_ns_; }
    const Sample& operator[](uint64_t i) const { return buffer_[i]; }

private:
    std::unique_ptr<Sample[]> buffer_;
    uint64_t capacity_ = 0;
    uint64_t kept_ = 0;
    uint64_t dropped_ = 0;
    int64_t origin_ns_ = 0;
};

}  // namespace zc
