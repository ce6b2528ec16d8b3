#include "bidir.hpp"

#include "side_by_side.hpp"

namespace zc {

std::pair<TestResult, TestResult> run_bidir(ControlClient& forward, ControlClient& reverse, const TestSpec& spec) {
    TestSpec twin = spec;
    twin.test = Workload::maerts;
    auto [out, back] = run_side_by_side("--bidir", {forward, spec, {}}, {reverse, twin, {}});
    double sum = out.throughput_gbps + back.throughput_gbps;
    out.bidir_with = workload_name(back.test);
    back.bidir_with = workload_name(out.test);
    out.bidir_sum_gbps = back.bidir_sum_gbps = sum;
    return {std::move(out), std::move(back)};
}

}  // namespace zc
