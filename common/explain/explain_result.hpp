#pragma once
// What --explain found on one side: where the sampled CPU time of the measured interval went, by
// category, by function and by CPU. Plain data; protocol/explain_json.cpp puts it on the wire.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "explain/categories.hpp"

namespace zc {

inline constexpr size_t kMaxStacks = 2000;   // folded stacks kept per side (the heaviest)
inline constexpr size_t kTopFunctions = 12;  // leaf functions listed per side

struct ExplainFunction {
    std::string name;    // the leaf function: "tcp_sendmsg_locked", "[user]" for user space
    std::string module;  // "virtio_net"; "" for the kernel image
    Category category = Category::other;
    double cpu_s = 0;  // samples with this leaf x the sample period
};

struct ExplainCpu {
    int cpu = 0;
    double busy_s = 0;
    std::array<double, kCategoryCount> category_s{};
};

struct ExplainSide {
    bool ran = false;
    std::string problem;  // why this side did not explain ("" when it ran), said as is to the user
    std::string event;    // "cpu-clock"
    int hz = 0;
    double period_s = 0;   // CPU time each sample stands for
    uint64_t samples = 0;  // every sample of the interval, idle included
    uint64_t busy_samples = 0;
    uint64_t lost = 0;        // samples the kernel dropped (ring buffer full)
    uint64_t throttled = 0;   // times the kernel throttled the event
    double busy_s = 0;        // sampled busy CPU time over the sampled CPUs: the categories add up to it
    double stat_busy_s = 0;   // /proc/stat's busy CPU time over the same CPUs and interval
    double stat_steal_s = 0;  // ... and its steal: the vCPU ran for another guest, and the sampler's timer,
                              // firing as the vCPU resumes, counts that time as busy where /proc/stat does not
    // Exact busy (+ steal) time over the same CPUs and interval, from idle clocks: interval x CPUs less the
    // idle time. cpuidle's residency counters (absent where this kernel has no cpuidle, as on many VMs:
    // then cpuidle_absent says why and cpuidle_busy_s means nothing), and /proc/stat's idle + iowait,
    // which a NOHZ kernel keeps exactly (from the idle entry and exit times, not from ticks; /proc/stat's
    // busy fields are charged a tick at a time).
    double cpuidle_busy_s = 0;
    std::string cpuidle_absent;  // why there is no cpuidle figure; empty: measured
    // The test's own processes' kernel samples (zcperf's, a same-host peer's: their system calls and
    // the softirq work run in their context; not the sampler thread's), and those in other kernel or
    // unknown: what the rules miss of the test's own path, apart from other processes' kernel work,
    // which the host-wide shares hold.
    uint64_t own_kernel_samples = 0;
    uint64_t own_unclassified_samples = 0;
    double idle_clock_busy_s = 0;
    double sampler_cpu_s = 0;  // the sampler thread's own CPU time (included in "own user time" and kernel)
    // When the events counted, CLOCK_MONOTONIC seconds (perf record -k mono): `perf script --time FROM,UNTIL`
    // gives perf's samples of the same interval. Over repetitions, the first start to the last stop; 0: not
    // reported (an older peer).
    double sampled_from_s = 0, sampled_until_s = 0;
    std::vector<int> cpus;  // the CPUs sampled
    std::array<double, kCategoryCount> category_s{};
    std::array<uint64_t, kCategoryCount> category_samples{};  // busy samples per category: the shares' error
    std::vector<ExplainFunction> top;                         // the heaviest leaf functions, heaviest first
    std::vector<ExplainCpu> per_cpu;                          // CPUs with any busy sample
    // --explain-stacks: folded stacks, root first ("entry_SYSCALL_64;...;tcp_sendmsg_locked", samples).
    std::vector<std::pair<std::string, uint64_t>> stacks;
    uint64_t stacks_left_out = 0;  // samples in stacks beyond the kept ones (the lightest)

    double category(Category c) const { return category_s[static_cast<size_t>(c)]; }
};

// The 95 % sampling error of a category's share, in percentage points: each busy sample falls in the
// category or not (binomial), so with n of N samples the share's half-width is 1.96 sqrt(p (1 - p) / N).
inline double share_error_pct(uint64_t n, uint64_t busy_samples) {
    if (busy_samples == 0) return 0;
    double p = static_cast<double>(n) / static_cast<double>(busy_samples);
    return 100.0 * 1.96 * std::sqrt(p * (1 - p) / static_cast<double>(busy_samples));
}

// Repetitions of one test (-i): counts and times add; a repetition without explain leaves none.
void merge_explain(ExplainSide& into, const ExplainSide& add);

}  // namespace zc
