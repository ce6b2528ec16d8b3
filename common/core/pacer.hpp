#pragma once
// -b/--bitrate: a sender's own clock. The n-th byte may leave no earlier than start + n * 8 / rate, so
// the average rate is exact over any run and a late call is caught up at once (bursts of at most what
// the caller hands over per call), as iperf3 paces. Any transport's send loop asks it before each call;
// it holds no lock and makes no system call unless it must sleep (clock_nanosleep to an absolute time).
#include <atomic>
#include <cstdint>
#include <string>

namespace zc {

// How a -b sender kept its rate: the kernel's pacing (SO_MAX_PACING_RATE, honoured by the fq qdisc
// on the egress device: the sender then only blocks) or the sender's own clock (every other qdisc).
enum class PacingMethod : uint8_t { none, sender_clock, kernel_fq };
const char* pacing_method_name(PacingMethod m);  // "none", "sender clock", "kernel (fq)"

// What a paced loop reports (zeros when unpaced).
struct PacingCounts {
    PacingMethod method = PacingMethod::none;
    uint64_t sleep_ns = 0;  // time the sender waited for its schedule (0: it could not keep up)
    void add(const PacingCounts& o) {
        if (o.method != PacingMethod::none) method = o.method;
        sleep_ns += o.sleep_ns;
    }
};

// The lowest rate -b takes: below 1 kbit/s a 64 KiB call would wait more than eight minutes.
inline constexpr uint64_t kMinBitrate = 1000;
inline constexpr uint64_t kMaxBitrate = 1000000000000000ull;  // 1000 Tbit/s

class Pacer {
public:
    Pacer() = default;  // rate 0: unpaced, wait() returns at once
    explicit Pacer(uint64_t bits_per_s) : rate_(bits_per_s) {}
    bool paced() const { return rate_ != 0; }
    uint64_t rate() const { return rate_; }
    // The first call's time (CLOCK_MONOTONIC ns): the schedule counts from here.
    void start(int64_t now_ns) { start_ns_ = now_ns; }
    // When the byte after `sent` bytes may leave, on the schedule begun at start().
    int64_t due_ns(uint64_t sent) const {
        if (!rate_) return start_ns_;
        // bytes * 8e9 / rate without overflow: whole seconds in integers, the rest (under a second, but
        // remainder x 1e9 passes 2^64 above 18 Gbit/s) in long double's 64-bit mantissa, exact to the ns.
        uint64_t bits = sent * 8;
        return start_ns_ + static_cast<int64_t>(bits / rate_) * 1000000000 +
               static_cast<int64_t>(static_cast<long double>(bits % rate_) * 1e9L / static_cast<long double>(rate_));
    }
    // Sleeps until `sent` bytes are due (returns at once when behind or unpaced), in slices of at most
    // 100 ms so that `abort` (when given) ends a long wait at a low rate. Returns the nanoseconds slept,
    // for the report (0 when the sender was the bottleneck).
    int64_t wait(uint64_t sent, const std::atomic<bool>* abort = nullptr) const;

private:
    uint64_t rate_ = 0;
    int64_t start_ns_ = 0;
};

// "1.5G", "100M", "64k", "1000" (bits per second, iperf3's spelling: k/M/G/T are powers of 1000).
// Throws std::invalid_argument naming the option (-b, --fq-rate) and the accepted forms, or the limit for
// a rate under 1 kbit/s.
uint64_t parse_bitrate(const std::string& text, const char* option = "-b/--bitrate");
std::string bitrate_text(uint64_t bits_per_s);  // "1.5 Gbit/s"

}  // namespace zc
