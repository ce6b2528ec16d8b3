#pragma once
// What one stream's hot loop reports. Filled inside the loop with plain integer adds only.
#include <atomic>
#include <cstdint>

namespace zc {

struct StreamCounters {
    uint64_t bytes = 0;
    uint64_t ops = 0;  // calls that moved data
    int error = 0;     // errno of the call that failed, 0 if none
    const char* failed_call = nullptr;
};

// When a sending loop ends: at a monotonic deadline, or after a byte budget (0 = no budget), or when
// another thread asks it to (a peer vanished, Ctrl-C).
struct StopRule {
    int64_t deadline_ns = 0;  // CLOCK_MONOTONIC
    uint64_t byte_budget = 0;
    const std::atomic<bool>* abort = nullptr;
};

}  // namespace zc
