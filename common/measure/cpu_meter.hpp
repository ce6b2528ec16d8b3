#pragma once
// CPU accounting over one measured interval, from the kernel's own counters:
// /proc/stat per CPU (everything that ran, softirq on any core included: netperf's method),
// and /proc/[pid]/stat of every other process (the load that is not ours).
#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <vector>

#include "measure/other_processes.hpp"
#include "measure/proc_stat.hpp"

namespace zc {

struct CpuShare {  // percent of the CPUs in question over the interval
    double user = 0, nice = 0, system = 0, irq = 0, softirq = 0, iowait = 0, steal = 0, idle = 0;
    // The parts are rounded separately, so a fully busy CPU could sum to 100.00000001: capped at 100.
    double busy() const { return std::min(100.0, user + nice + system + irq + softirq); }
};

struct PerCpuUsage {
    int cpu = 0;
    CpuShare share;
};

struct CpuUsage {
    double elapsed_s = 0;
    int ncpus = 0;
    CpuShare all;           // averaged over every CPU (netperf's "all CPUs")
    double busy_cpu_s = 0;  // all.busy()/100 x ncpus x elapsed
    std::vector<PerCpuUsage> per_cpu;
    OtherLoad others;
};

// Shares of one tick difference (used for the aggregate line and each CPU), in percent of
// max(the ticks counted, capacity_ticks). With the interval's capacity (elapsed x USER_HZ x CPUs) as
// the floor, ticks the kernel failed to account (seen here: a partly idle tickless vCPU reported 421
// of 500 ticks in 5 s) do not inflate the busy share, as netperf's busy/total ratio lets them; busy
// CPU-seconds then equal the busy ticks the kernel counted, qperf's measure.
CpuShare share_of(const CpuTicks& d, double capacity_ticks = 0);

// Turns two /proc/stat readings and the interval into a CpuUsage (no other-process data).
CpuUsage usage_between(const ProcStat& before, const ProcStat& after, double elapsed_s, long ticks_per_s = 100);

// Busy CPU-seconds on a subset of CPUs (the test's own CPUs) over the interval, and the steal there (the
// hypervisor ran another guest: /proc/stat's busy leaves it out, a cpu-clock sampler counts it as busy).
double busy_cpu_s_on(const CpuUsage& u, const std::vector<int>& cpus);
double steal_cpu_s_on(const CpuUsage& u, const std::vector<int>& cpus);
// Idle + iowait CPU-seconds there: a NOHZ kernel keeps these exactly (idle entry to exit, not ticks).
double idle_cpu_s_on(const CpuUsage& u, const std::vector<int>& cpus);

class CpuMeter {
public:
    // Processes in `exclude` (ourselves, a peer on the same host) are not "other" load.
    explicit CpuMeter(std::set<int> exclude);
    // start() walks the process table, then reads /proc/stat: the interval's first edge. stop() reads
    // /proc/stat (the last edge), runs at_edge, then walks the process table: work that must end at the
    // edge (a sampler) ends there, and the walks, zcperf's own /proc reads, stay outside the interval.
    void start();
    CpuUsage stop(const std::function<void()>& at_edge = {});

private:
    std::set<int> exclude_;
    ProcessTable procs_before_;
    ProcStat stat_before_;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace zc
