#pragma once
// /proc/stat per-CPU tick counters, parsed, and the difference of two readings; /proc/vmstat's OOM kills.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zc {

struct CpuTicks {
    int cpu = -1;  // -1 = the aggregate "cpu" line
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;

    // guest and guest_nice are already inside user and nice, so they are not added again.
    uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
    // Busy = what ran on this CPU for someone in this guest. iowait is idle time (the CPU was free);
    // steal is time the hypervisor gave to another guest: neither is work this host did.
    uint64_t busy() const { return user + nice + system + irq + softirq; }
};

struct ProcStat {
    CpuTicks all;
    std::vector<CpuTicks> per_cpu;  // ascending by cpu
};

// Parses the text of /proc/stat. Throws std::runtime_error if there is no "cpu" line.
ProcStat parse_proc_stat(std::string_view text);
ProcStat read_proc_stat(const std::string& path = "/proc/stat");

// after - before, per field; a CPU missing from either reading (hot-unplugged) is dropped.
ProcStat diff(const ProcStat& before, const ProcStat& after);

// The kernel's count of OOM kills since boot (`oom_kill` in /proc/vmstat, Linux 4.13+: the whole host's and
// every memory cgroup's), or nullopt where the file lacks it.
std::optional<uint64_t> read_oom_kills(const std::string& vmstat = "/proc/vmstat");

}  // namespace zc
