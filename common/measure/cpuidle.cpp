#include "measure/cpuidle.hpp"

#include <time.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace zc {

namespace {

double monotonic_s() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// One CPU's residency over its states, µs; none without a state folder.
std::optional<double> cpu_idle_us(const std::string& root, int cpu) {
    const std::filesystem::path dir = root + "/cpu" + std::to_string(cpu) + "/cpuidle";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
    double sum = 0;
    bool any = false;
    for (const auto& state : std::filesystem::directory_iterator(dir, ec)) {
        if (state.path().filename().string().rfind("state", 0) != 0) continue;
        std::ifstream in(state.path() / "time");
        double us = 0;
        if (!(in >> us)) return std::nullopt;
        sum += us;
        any = true;
    }
    if (!any) return std::nullopt;
    return sum;
}

}  // namespace

std::string cpuidle_absent_reason(const std::string& root) {
    std::ifstream in(root + "/cpuidle/current_driver");
    std::string driver;
    if (!(in >> driver)) return "no cpuidle on this kernel: there is no " + root + "/cpuidle/current_driver";
    if (driver == "none") return "no cpuidle driver: " + root + "/cpuidle/current_driver reads none";
    return "cpuidle driver " + driver + " lists no idle states for the sampled CPUs";
}

std::optional<double> cpuidle_idle_s(const std::vector<int>& cpus, const std::string& root) {
    double sum = 0;
    for (int cpu : cpus) {
        auto us = cpu_idle_us(root, cpu);
        if (!us) return std::nullopt;
        sum += *us;
    }
    return sum * 1e-6;
}

CpuidleClock::CpuidleClock(std::vector<int> cpus, std::string root) : cpus_(std::move(cpus)), root_(std::move(root)) {}

void CpuidleClock::start() {
    idle0_ = cpuidle_idle_s(cpus_, root_);
    t0_ = monotonic_s();
}

void CpuidleClock::stop() {
    t1_ = monotonic_s();
    idle1_ = cpuidle_idle_s(cpus_, root_);
}

std::optional<double> CpuidleClock::busy_cpu_s() const {
    if (!idle0_ || !idle1_ || t1_ <= t0_) return std::nullopt;
    double capacity = (t1_ - t0_) * static_cast<double>(cpus_.size());
    return std::max(0.0, capacity - (*idle1_ - *idle0_));
}

}  // namespace zc
