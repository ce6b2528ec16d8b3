#pragma once
// What one stream's hot loop reports. Filled inside the loop with plain integer adds only.
#include <atomic>
#include <cstdint>

#include "core/pacer.hpp"
#include "core/staging_counts.hpp"

namespace zc {

// The kernel's own word on zero-copy: what MSG_ZEROCOPY / io_uring SEND_ZC completions and
// TCP_ZEROCOPY_RECEIVE reported. Summed over streams and iterations as they are.
struct ZeroCopyCounts {
    uint64_t sent_bytes = 0;       // bytes handed over with a zero-copy request
    uint64_t copied_bytes = 0;     // of those, bytes the kernel reported it copied anyway
    uint64_t completions = 0;      // completion notifications read
    uint64_t enobufs = 0;          // times the kernel refused for lack of memory and we waited
    uint64_t rx_mapped_bytes = 0;  // zero-copy receive: mapped into our address space, not copied
    uint64_t rx_copied_bytes = 0;  // zero-copy receive: had to be copied (unaligned tails, fallbacks)

    void add(const ZeroCopyCounts& o) {
        sent_bytes += o.sent_bytes;
        copied_bytes += o.copied_bytes;
        completions += o.completions;
        enobufs += o.enobufs;
        rx_mapped_bytes += o.rx_mapped_bytes;
        rx_copied_bytes += o.rx_copied_bytes;
    }
};

struct StreamCounters {
    uint64_t bytes = 0;
    uint64_t ops = 0;  // calls that moved data
    int error = 0;     // errno of the call that failed, 0 if none
    const char* failed_call = nullptr;
    ZeroCopyCounts zerocopy;
    uint64_t messages = 0;  // rr: transactions completed / answered; msgrate: whole messages sent / received
    uint64_t segments = 0;  // rr, msgrate: TCP data segments this stream sent (received, msgrate receiver)
    StagingCounts staging;  // GPU memory staged through host bounce buffers (zeros for host memory)
    PacingCounts pacing;    // -b: how the sender kept its rate, and how long it waited for it
};

// A stream's running totals as its loop publishes them, for the interval sampler (run/interval_sampler.hpp)
// to read from its own thread while the loop runs: relaxed stores of values the loop already holds (a
// plain mov on x86: no lock, no fence, no syscall), one cache line per stream so streams do not share one.
struct alignas(64) LiveCounts {
    std::atomic<uint64_t> bytes{0};
    std::atomic<uint64_t> messages{0};
};

int64_t monotonic_ns();  // CLOCK_MONOTONIC (vDSO)

// When a sending loop ends: at a monotonic deadline, or after a byte budget (0 = no budget), or when
// another thread asks it to (a peer vanished, Ctrl-C).
struct StopRule {
    int64_t deadline_ns = 0;  // CLOCK_MONOTONIC
    uint64_t byte_budget = 0;
    const std::atomic<bool>* abort = nullptr;
    LiveCounts* live = nullptr;  // --interval: where the loop publishes its counts (nullptr: nobody reads them)
    // -b: the sender's own clock, on the schedule begun when the measured interval began. Every send loop
    // of every transport asks next_length before each call, so pacing lives here, once; each stream's
    // copy keeps its own bytes (iperf3's -b is per stream) and the time it waited.
    Pacer pacer;
    mutable uint64_t paced_sleep_ns = 0;

    // Timed runs keep the longest time between two next_length calls and when it ended: a send call
    // blocked by a stalled peer or link, the reason a run outlasts its -l. Each stream thread runs on
    // its own copy, so plain (mutable) integers suffice.
    mutable int64_t last_call_ns = 0;
    mutable int64_t longest_wait_ns = 0;
    mutable int64_t longest_wait_end_ns = 0;

    // Bytes for the next call (0 = stop now; paced: also when the next byte is not due before the
    // deadline), after waiting for the pacer. Reads the clock: vDSO, tens of ns beside a send.
    size_t next_length(uint64_t sent, size_t message_size) const;

    // The clock as next_length read it for this call, so a loop that stamps its data (UDP's send time)
    // reads it once a call, not twice; a byte-budget run (-n) reads no clock there, so it is read here.
    int64_t call_time_ns() const { return byte_budget > 0 || last_call_ns == 0 ? monotonic_ns() : last_call_ns; }

    // After the loop: the pacer's waits into its counts, and how it paced where the path did not say
    // (UDP over fq names the kernel; every other paced path is the sender's clock).
    void add_pacing(StreamCounters& c) const {
        if (!pacer.paced()) return;
        c.pacing.sleep_ns += paced_sleep_ns;
        if (c.pacing.method == PacingMethod::none) c.pacing.method = PacingMethod::sender_clock;
    }

    // Every loop calls this after it counted a call's bytes or messages (receivers too: they take the
    // stop rule for it).
    void publish(const StreamCounters& c) const {
        if (!live) return;
        live->bytes.store(c.bytes, std::memory_order_relaxed);
        live->messages.store(c.messages, std::memory_order_relaxed);
    }
};

}  // namespace zc
