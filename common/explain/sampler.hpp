#pragma once
// --explain's sampler: one perf_event_open per CPU (the software cpu-clock event: it exists without a
// PMU, in VMs and containers, and each sample stands for a fixed slice of CPU time, the unit of service
// demand), every process on that CPU (pid -1) so that softirq work on another core is caught, with the
// kernel call chain. One thread drains the mmap'd rings; the data loops are untouched. Enabled and
// disabled at the measured interval's edges, where the /proc/stat snapshots are taken.
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/unique_fd.hpp"
#include "explain/explain_result.hpp"
#include "explain/kallsyms.hpp"

namespace zc {

// One distinct sample: where (CPU), whose (user or kernel, this process or not, the idle task; in
// libcrypto's text), and the kernel call chain, leaf first.
struct SampleKey {
    enum Flags : uint8_t { user = 1, own = 2, idle_task = 4, sampler = 8, libcrypto = 16 };
    uint32_t cpu = 0;
    uint8_t flags = 0;
    std::vector<uint64_t> ips;
    bool operator==(const SampleKey&) const = default;
};
struct SampleKeyHash {
    size_t operator()(const SampleKey& k) const;
};
// A distinct sample's count and the CPU time its samples stand for. A cpu-clock timer that fires late
// (a vCPU descheduled by the host, interrupts off) fires once for the periods it missed
// (hrtimer_forward_now skips them): counted as one period each, such samples left the sampled busy time
// 2 % (all CPUs busy) to 15 % (steal) short on the 2-vCPU VM. So a sample in a task that follows one in
// a task on its CPU stands for the time since (perf's own timestamps); next to the idle task, the period.
struct SampleTally {
    uint64_t samples = 0;
    uint64_t ns = 0;
};
using SampleCounts = std::unordered_map<SampleKey, SampleTally, SampleKeyHash>;

struct SampleTotals {
    SampleCounts counts;
    uint64_t lost = 0, throttled = 0;
    double sampler_cpu_s = 0;
    // The interval the events counted, on CLOCK_MONOTONIC (perf's `-k mono`): from the enable to the disable,
    // widened to whole microseconds.
    double from_s = 0, until_s = 0;
};

// Turns the counted samples into a side's explanation: categories, top functions, per CPU, stacks.
// `period_s`: the nominal CPU time per sample (the rate reported); each sample weighs its SampleTally::ns. `stacks`:
// keep folded stacks (at most kMaxStacks distinct ones).
ExplainSide summarize_samples(const SampleTotals& totals, const KernelSymbols& symbols, double period_s, bool stacks);

// A process's executable mappings of one library, from its /proc/PID/maps: OpenSSL's crypto
// (OpenSSL's AES-GCM, GHASH, ChaCha20/Poly1305) runs in libcrypto's text, so a user sample's IP there is
// crypto without resolving a symbol. `library`: the file name's start ("libcrypto.so" for
// /usr/lib/x86_64-linux-gnu/libcrypto.so.3).
struct TextRange {
    uint64_t begin = 0, end = 0;  // [begin, end)
    pid_t pid = 0;
};
std::vector<TextRange> library_text(std::istream& maps, pid_t pid, std::string_view library);

// Each CPU's timer runs at its own period, drawn within +-kPeriodSpread of the nominal one per CPU and per
// sampler: timers of one period keep their phase for the whole run, so two samplers of the same CPUs (both
// sides of a loopback run; perf record -F 999 beside --explain-hz 999) or a workload that wakes on a
// sampler's timer would each see the CPU at one point of a cycle only. This VM, a paced loopback stream
// (-b 8G, 999 Hz, perf record beside): the two sides' samplers of the same CPUs counted 836 against 1204 and
// 957 against 1826 busy samples at one period; 1712/1547, 1622/1559 and 1462/1460 with the spread.
inline constexpr double kPeriodSpread = 0.02;

class Sampler {
public:
    // Opens the events, disabled. On failure problem() says why, in the user's words, and what to
    // change; the test runs on without explain.
    // `own`: the test's processes (this one, a peer on the same host): their user time is "own".
    Sampler(const std::vector<int>& cpus, int hz, std::vector<pid_t> own);
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;
    ~Sampler();

    const std::string& problem() const { return problem_; }
    bool ok() const { return problem_.empty(); }
    bool enabled() const { return enabled_; }
    void enable();   // the interval starts: the drain thread runs, the events count
    void disable();  // the interval ends: the events stop, the rings are drained, the thread ends
    const SampleTotals& totals() const { return totals_; }
    const std::vector<int>& cpus() const { return cpus_; }
    int hz() const { return hz_; }
    double period_s() const { return static_cast<double>(period_ns_) * 1e-9; }

private:
    struct Ring {
        UniqueFd fd;
        void* base = nullptr;
        size_t bytes = 0;  // the mapping: one metadata page and the data pages
        int cpu = -1;
    };
    void drain_loop();
    void drain(Ring& r);
    void on_record(const char* rec, size_t size);

    std::vector<int> cpus_;
    int hz_ = 0;
    uint64_t period_ns_ = 0;               // the nominal period (the rate reported)
    std::vector<uint64_t> cpu_period_ns_;  // per CPU: its timer's own period, within kPeriodSpread of the nominal
    std::vector<Ring> rings_;
    std::string problem_;
    SampleTotals totals_;
    SampleKey scratch_;
    std::vector<char> wrap_;         // a record that wraps around the ring's end, made whole
    std::vector<uint64_t> last_ns_;  // per CPU: the previous sample's time (CLOCK_MONOTONIC), or the enable
    std::vector<bool> last_idle_;    // per CPU: the previous sample was in the idle task
    std::vector<pid_t> own_;
    std::vector<TextRange> libcrypto_;  // the own processes' libcrypto text, read before the interval
    std::atomic<pid_t> sampler_tid_{0};
    std::atomic<bool> stop_{false};
    std::thread thread_;
    bool enabled_ = false;
};

}  // namespace zc
