#pragma once
// Two tests at once, each over its own control connection and data connections, released together
// once both are ready (RunHooks::before_start): --bidir's two directions, --under-load's test and its load.
#include <functional>
#include <string>
#include <utility>

#include "control_client.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

struct SideBySide {
    ControlClient& control;
    TestSpec spec;
    std::function<void()> at_start;  // runs once both are released, just before this one's start (may be empty)
};

// Each test's whole result. Throws what either threw (the first one's error first); `option` names the
// option in the errors ("--bidir: the other test was not ready within 30 s").
std::pair<TestResult, TestResult> run_side_by_side(const std::string& option, const SideBySide& a, const SideBySide& b);

}  // namespace zc
