#pragma once
// --explain for one side of a test: the sampler over every online CPU, the kernel's symbols, and the
// summary at the end, checked against /proc/stat. Never fails the test: what went wrong is the
// result's `problem`.
#include <memory>
#include <set>
#include <string>

#include "explain/explain_result.hpp"
#include "explain/kallsyms.hpp"
#include "explain/sampler.hpp"
#include "measure/cpu_meter.hpp"
#include "measure/cpuidle.hpp"

namespace zc {

// bench/explain.sh, 15 alternating rounds (docs/explain.md): 999 Hz cost this VM 0.94x (64K) and 0.90x (1M) of the
// throughput without it, 249 Hz 1.04x and 1.00x; the lent machine 0.925x at 999 Hz. 249 (not 250) so the samples
// do not keep step with a 250 Hz tick.
inline constexpr int kDefaultExplainHz = 249;
inline constexpr int kMaxExplainHz = 20000;

class SideExplainer {
public:
    // Opens the events and reads /proc/kallsyms (set-up, before the measured interval).
    // `own`: the test's processes (this one, a same-host peer).
    SideExplainer(int hz, bool stacks, const std::set<int>& own, const std::string& kallsyms_path = "/proc/kallsyms");
    void start();  // at the interval's first /proc/stat snapshot
    void stop();   // at its last
    // The side's explanation; `stat`: /proc/stat over the same interval.
    ExplainSide finish(const CpuUsage& stat);

private:
    bool stacks_;
    std::string problem_;
    KernelSymbols symbols_;
    std::unique_ptr<Sampler> sampler_;
    std::unique_ptr<CpuidleClock> cpuidle_;  // the sampled CPUs' exact idle clock, where the kernel has one
};

}  // namespace zc
