#pragma once
// "Is zero-copy cheaper than copying?": each result compared with the same test (receive mode,
// direction, message size) on the run's first transport.
#include <vector>

#include "protocol/result.hpp"

namespace zc {

// Fills r.baseline from the matching result in `earlier`, if there is one: the same test on the first
// transport (`baseline`), or, for the first transport at another --rx mode, at the first mode
// (`baseline_rx`). With --explain on both, the category deltas too.
void compare_with_baseline(TestResult& r, const std::vector<TestResult>& earlier, Transport baseline,
                           RxMode baseline_rx = RxMode::copy);

}  // namespace zc
