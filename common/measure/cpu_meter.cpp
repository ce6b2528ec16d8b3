#include "measure/cpu_meter.hpp"

#include <unistd.h>

#include <algorithm>

namespace zc {

CpuShare share_of(const CpuTicks& d, double capacity_ticks) {
    CpuShare s;
    double total = std::max(static_cast<double>(d.total()), capacity_ticks);
    if (total <= 0) {
        s.idle = 100;
        return s;
    }
    auto pct = [&](uint64_t v) { return 100.0 * static_cast<double>(v) / total; };
    s.user = pct(d.user);
    s.nice = pct(d.nice);
    s.system = pct(d.system);
    s.irq = pct(d.irq);
    s.softirq = pct(d.softirq);
    s.iowait = pct(d.iowait);
    s.steal = pct(d.steal);
    s.idle = pct(d.idle);
    return s;
}

CpuUsage usage_between(const ProcStat& before, const ProcStat& after, double elapsed_s, long ticks_per_s) {
    ProcStat d = diff(before, after);
    CpuUsage u;
    u.elapsed_s = elapsed_s;
    u.ncpus = static_cast<int>(d.per_cpu.size());
    if (u.ncpus == 0) u.ncpus = 1;
    double capacity = elapsed_s * static_cast<double>(ticks_per_s);  // ticks one CPU can count
    u.all = share_of(d.all, capacity * u.ncpus);
    u.busy_cpu_s = u.all.busy() / 100.0 * u.ncpus * elapsed_s;
    for (const auto& c : d.per_cpu) u.per_cpu.push_back({c.cpu, share_of(c, capacity)});
    return u;
}

namespace {
template <typename Percent>
double cpu_s_on(const CpuUsage& u, const std::vector<int>& cpus, Percent percent) {
    double s = 0;
    for (const auto& c : u.per_cpu)
        if (std::find(cpus.begin(), cpus.end(), c.cpu) != cpus.end()) s += percent(c.share) / 100.0 * u.elapsed_s;
    return s;
}
}  // namespace

double busy_cpu_s_on(const CpuUsage& u, const std::vector<int>& cpus) {
    return cpu_s_on(u, cpus, [](const CpuShare& s) { return s.busy(); });
}

double steal_cpu_s_on(const CpuUsage& u, const std::vector<int>& cpus) {
    return cpu_s_on(u, cpus, [](const CpuShare& s) { return s.steal; });
}

double idle_cpu_s_on(const CpuUsage& u, const std::vector<int>& cpus) {
    return cpu_s_on(u, cpus, [](const CpuShare& s) { return s.idle + s.iowait; });
}

CpuMeter::CpuMeter(std::set<int> exclude) : exclude_(std::move(exclude)) {}

void CpuMeter::start() {
    procs_before_ = read_process_table();
    stat_before_ = read_proc_stat();
    t0_ = std::chrono::steady_clock::now();
}

CpuUsage CpuMeter::stop(const std::function<void()>& at_edge) {
    auto t1 = std::chrono::steady_clock::now();
    ProcStat stat_after = read_proc_stat();
    if (at_edge) at_edge();
    ProcessTable procs_after = read_process_table();
    double elapsed = std::chrono::duration<double>(t1 - t0_).count();
    CpuUsage u = usage_between(stat_before_, stat_after, elapsed, sysconf(_SC_CLK_TCK));
    u.others = other_load(procs_before_, procs_after, exclude_, sysconf(_SC_CLK_TCK));
    return u;
}

}  // namespace zc
