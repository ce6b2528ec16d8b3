#include "explain/side_explainer.hpp"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "system/affinity.hpp"

namespace zc {

SideExplainer::SideExplainer(int hz, bool stacks, const std::set<int>& own, const std::string& kallsyms_path)
    : stacks_(stacks) {
    // The events first: without the right to sample, that is what the user must change (an unprivileged
    // reader also sees kallsyms' addresses as 0, which would otherwise be said first).
    std::vector<pid_t> pids(own.begin(), own.end());
    if (std::find(pids.begin(), pids.end(), getpid()) == pids.end()) pids.push_back(getpid());
    sampler_ = std::make_unique<Sampler>(online_cpus(), hz, pids);
    if (!sampler_->ok()) {
        problem_ = sampler_->problem();
        sampler_.reset();
        return;
    }
    try {
        symbols_ = KernelSymbols(kallsyms_path);
    } catch (const std::exception& e) {
        problem_ = std::string("--explain: ") + e.what() + "; the test ran without explain";
    }
    if (problem_.empty() && symbols_.hidden()) {
        problem_ = "--explain: " + kallsyms_path +
                   " shows every address as 0 (kernel.kptr_restrict): run as root or 'sysctl kernel.kptr_restrict=0'; "
                   "the test ran without explain";
    }
    if (!problem_.empty()) sampler_.reset();
    if (sampler_) cpuidle_ = std::make_unique<CpuidleClock>(sampler_->cpus());
}

void SideExplainer::start() {
    if (cpuidle_) cpuidle_->start();
    if (sampler_) sampler_->enable();
}

void SideExplainer::stop() {
    if (sampler_ && sampler_->enabled()) {
        sampler_->disable();
        if (cpuidle_) cpuidle_->stop();
    }
}

ExplainSide SideExplainer::finish(const CpuUsage& stat) {
    stop();
    if (!sampler_) {
        ExplainSide none;
        none.problem = problem_;
        return none;
    }
    ExplainSide e = summarize_samples(sampler_->totals(), symbols_, sampler_->period_s(), stacks_);
    e.hz = sampler_->hz();
    e.cpus = sampler_->cpus();
    e.stat_busy_s = busy_cpu_s_on(stat, e.cpus);
    e.stat_steal_s = steal_cpu_s_on(stat, e.cpus);
    e.idle_clock_busy_s =
        std::max(0.0, stat.elapsed_s * static_cast<double>(e.cpus.size()) - idle_cpu_s_on(stat, e.cpus));
    if (auto busy = cpuidle_ ? cpuidle_->busy_cpu_s() : std::nullopt)
        e.cpuidle_busy_s = *busy;
    else
        e.cpuidle_absent = cpuidle_absent_reason();
    return e;
}

}  // namespace zc
