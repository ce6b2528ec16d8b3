#include <time.h>

#include <algorithm>

#include "core/stream_counters.hpp"

namespace zc {

int64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

size_t StopRule::next_length(uint64_t sent, size_t message_size) const {
    if (abort->load(std::memory_order_relaxed)) return 0;
    if (pacer.paced()) {
        if (byte_budget == 0 && pacer.due_ns(sent) >= deadline_ns) return 0;  // not due before the end
        const int64_t slept = pacer.wait(sent, abort);
        paced_sleep_ns += static_cast<uint64_t>(slept);
        if (last_call_ns != 0) last_call_ns += slept;  // a wait for the schedule is no stall
        if (abort->load(std::memory_order_relaxed)) return 0;
    }
    if (byte_budget > 0) return static_cast<size_t>(std::min<uint64_t>(byte_budget - sent, message_size));
    int64_t now = monotonic_ns();
    if (last_call_ns != 0 && now - last_call_ns > longest_wait_ns) {
        longest_wait_ns = now - last_call_ns;
        longest_wait_end_ns = now;
    }
    last_call_ns = now;
    return now < deadline_ns ? message_size : 0;
}

}  // namespace zc
