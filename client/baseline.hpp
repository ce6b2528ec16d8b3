#pragma once
// "Is zero-copy cheaper than copying?": each result compared with the same test (receive mode,
// direction, message size) on the run's first transport.
#include <vector>

#include "protocol/result.hpp"

namespace zc {

// Fills r.baseline from the matching result in `earlier` on `baseline`, if there is one.
void compare_with_baseline(TestResult& r, const std::vector<TestResult>& earlier, Transport baseline);

}  // namespace zc
