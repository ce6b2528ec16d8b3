#pragma once
// CPU time used by *other* user-space processes during the measured interval, from /proc/[pid]/stat.
// On a shared machine this load silently inflates every system-wide figure (netperf's, qperf's and
// ours), so zcperf measures it and says so.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace zc {

struct ProcessTicks {
    std::string comm;
    uint64_t ticks = 0;  // utime + stime. Not cutime/cstime: a child reaped during the interval would
                         // bring its whole lifetime with it and overstate the load.
};

// pid -> ticks, user-space processes only (kernel threads carry network work that may be ours).
using ProcessTable = std::map<int, ProcessTicks>;

// Parses one /proc/[pid]/stat line. Returns false for a kernel thread or a malformed line.
bool parse_pid_stat(std::string_view text, int& pid, ProcessTicks& out);

ProcessTable read_process_table(const std::string& proc_root = "/proc");

struct OtherLoad {
    double cpu_s = 0;  // CPU-seconds used by other processes in the interval
    struct Top {
        int pid;
        std::string comm;
        double cpu_s;
    };
    std::vector<Top> top;  // the heaviest few, for the warning
};

// Processes in `exclude` (this process, a peer on the same host) are not counted. A process that
// appeared during the interval counts whole; one that ended inside it is missed, so the figure is a
// lower bound (the whole-host CPU figures still contain everything).
OtherLoad other_load(const ProcessTable& before, const ProcessTable& after, const std::set<int>& exclude,
                     long ticks_per_s, size_t top_n = 3);

}  // namespace zc
