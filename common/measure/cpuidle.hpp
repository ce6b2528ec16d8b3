#pragma once
// The kernel's exact idle clock per CPU: cpuidle's residency counters,
// /sys/devices/system/cpu/cpuN/cpuidle/stateK/time (µs spent in each idle state, summed at each exit).
// Many VMs have none (no cpuidle driver: "current_driver" reads "none"); then there is nothing to read.
#include <optional>
#include <string>
#include <vector>

namespace zc {

// The idle residency of `cpus`, summed, in seconds; none when any of them has no cpuidle states.
// `root`: the sysfs CPU folder (a test's fixture).
std::optional<double> cpuidle_idle_s(const std::vector<int>& cpus, const std::string& root = "/sys/devices/system/cpu");

// Exact busy CPU time of `cpus` over an interval from the idle clock at its edges: interval x CPUs less
// the idle residency. Residency is counted when a CPU leaves an idle state, so a CPU asleep at an edge
// shifts its current sleep to the next reading: exact on busy CPUs, within one sleep on idle ones.
// Why a host has no cpuidle figure, in words: its driver ("current_driver" reads none, or the folder is
// missing). `root` as above.
std::string cpuidle_absent_reason(const std::string& root = "/sys/devices/system/cpu");

class CpuidleClock {
public:
    explicit CpuidleClock(std::vector<int> cpus, std::string root = "/sys/devices/system/cpu");
    void start();
    void stop();
    // None when this kernel has no cpuidle for these CPUs (or the interval did not run).
    std::optional<double> busy_cpu_s() const;

private:
    std::vector<int> cpus_;
    std::string root_;
    std::optional<double> idle0_, idle1_;
    double t0_ = 0, t1_ = 0;
};

}  // namespace zc
