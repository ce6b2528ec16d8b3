#pragma once
// netperf's service demand: microseconds of CPU per KB (1024 bytes) moved.
// netperf writes it as util% x 10000 / (KB/s) x Ncpus; with cpu_s = util x Ncpus x elapsed it is
// cpu_s x 1e6 / KB, which is what we compute. 1 us/KB = 0.977 CPU-s/GB (qperf's send/recv cost).
#include <cstdint>

namespace zc {

inline double service_demand_us_per_kb(double cpu_s, uint64_t bytes) {
    if (bytes == 0) return 0.0;
    return cpu_s * 1e6 / (static_cast<double>(bytes) / 1024.0);
}

// For request/response tests netperf's unit is us per transaction.
inline double service_demand_us_per_tran(double cpu_s, uint64_t transactions) {
    if (transactions == 0) return 0.0;
    return cpu_s * 1e6 / static_cast<double>(transactions);
}

inline double us_per_kb_to_cpu_s_per_gb(double us_per_kb) { return us_per_kb * 1e9 / 1024.0 / 1e6; }

}  // namespace zc
