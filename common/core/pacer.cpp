#include "core/pacer.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/stream_counters.hpp"

namespace zc {

const char* pacing_method_name(PacingMethod m) {
    switch (m) {
        case PacingMethod::sender_clock:
            return "sender clock";
        case PacingMethod::kernel_fq:
            return "kernel (fq)";
        case PacingMethod::none:
            break;
    }
    return "none";
}

int64_t Pacer::wait(uint64_t sent, const std::atomic<bool>* abort) const {
    if (!rate_) return 0;
    const int64_t due = due_ns(sent);
    const int64_t start = monotonic_ns();
    constexpr int64_t kSlice = 100000000;  // how late an abort may be seen
    for (int64_t now = start; now < due; now = monotonic_ns()) {
        if (abort && abort->load(std::memory_order_relaxed)) return now - start;
        const int64_t until = std::min(due, now + kSlice);
        timespec ts{static_cast<time_t>(until / 1000000000), static_cast<long>(until % 1000000000)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {}
    }
    return std::max<int64_t>(0, std::min(due, monotonic_ns()) - start);
}

uint64_t parse_bitrate(const std::string& text, const char* option) {
    const std::string forms =
        "give bits per second as a number with an optional k, M, G or T (powers of 1000): 100M, 2.5G";
    if (text.empty()) throw std::invalid_argument(std::string(option) + ": empty; " + forms);
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        throw std::invalid_argument(std::string(option) + " '" + text + "' is not a rate; " + forms);
    }
    double scale = 1;
    std::string rest = text.substr(used);
    if (rest == "k" || rest == "K")
        scale = 1e3;
    else if (rest == "m" || rest == "M")
        scale = 1e6;
    else if (rest == "g" || rest == "G")
        scale = 1e9;
    else if (rest == "t" || rest == "T")
        scale = 1e12;
    else if (!rest.empty())
        throw std::invalid_argument(std::string(option) + " '" + text + "': unknown unit '" + rest + "'; " + forms);
    double bits = v * scale;
    if (!std::isfinite(bits) || bits > static_cast<double>(kMaxBitrate))
        throw std::invalid_argument(std::string(option) + " '" + text + "' is above 1000 Tbit/s");
    if (bits < static_cast<double>(kMinBitrate))
        throw std::invalid_argument(std::string(option) + " '" + text + "' is below the lowest rate, 1 kbit/s (1k)");
    return static_cast<uint64_t>(std::llround(bits));
}

std::string bitrate_text(uint64_t b) {
    char out[48];
    const char* unit = "bit/s";
    double v = static_cast<double>(b);
    if (b >= 1000000000000ull) {
        v /= 1e12;
        unit = "Tbit/s";
    } else if (b >= 1000000000ull) {
        v /= 1e9;
        unit = "Gbit/s";
    } else if (b >= 1000000ull) {
        v /= 1e6;
        unit = "Mbit/s";
    } else if (b >= 1000ull) {
        v /= 1e3;
        unit = "kbit/s";
    }
    snprintf(out, sizeof(out), "%.4g %s", v, unit);
    return out;
}

}  // namespace zc
