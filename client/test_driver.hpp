#pragma once
// Runs one test against one server over an open control connection, and merges both sides'
// measurements into a TestResult (checking the sender's byte count against the receiver's).
#include <atomic>
#include <functional>

#include "control_client.hpp"
#include "protocol/result.hpp"
#include "protocol/test_spec.hpp"

namespace zc {

// Set by SIGINT: the running test is stopped on both sides and reported as interrupted.
extern std::atomic<bool> g_interrupted;

struct InterruptedError : std::runtime_error {
    InterruptedError() : std::runtime_error("interrupted") {}
};

// before_start runs once both sides are ready, just before the test starts (zcperf-mpi waits there for
// every pair of the round); when it throws, the server is told to stop and the error is rethrown.
TestResult run_test(ControlClient& control, const TestSpec& spec, const std::function<void()>& before_start = {});

// Merges both sides; throws std::runtime_error when the byte counts disagree.
TestResult merge_sides(const TestSpec& spec, SideResult local, SideResult remote, bool same_host);

}  // namespace zc
