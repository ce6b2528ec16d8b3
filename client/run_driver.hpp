#pragma once
// Runs one test against one server over an open control connection, and merges both sides'
// measurements into a TestResult (checking the sender's byte count against the receiver's).
#include <atomic>
#include <functional>
#include <string>

#include "control_client.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// Set by SIGINT: the running test is stopped on both sides and reported as interrupted.
extern std::atomic<bool> g_interrupted;

struct InterruptedError : std::runtime_error {
    InterruptedError() : std::runtime_error("interrupted") {}
};

// Called with each interval row as soon as both sides' halves of it are in (--interval).
using IntervalSink = std::function<void(const IntervalRow&)>;

// What a caller adds to one run of a test.
struct RunHooks {
    IntervalSink on_interval;  // each interval row (--interval)
    int iteration = 1;         // which repetition of the test this is (1-based), for the interval rows
    // Runs once both sides are ready, just before the test starts (zcperf-mpi waits there for every pair
    // of the round); when it throws, the server is told to stop and the error is rethrown.
    std::function<void()> before_start;
};

TestResult run_test(ControlClient& control, const TestSpec& spec, const RunHooks& hooks = {});

// --interval against a server that does not send interval samples: what to tell the user ("" if none).
std::string interval_support_problem(const TestParams& params, const Welcome& welcome);
// --flows against a server that predates it (it would ignore the field and wait for one connection
// per stream): the refusal, "" when the server serves flows or none are asked for.
std::string flows_support_problem(const TestParams& params, const Welcome& welcome);

// Merges both sides; throws std::runtime_error when the byte counts disagree.
TestResult merge_sides(const TestSpec& spec, SideResult local, SideResult remote, bool same_host);

}  // namespace zc
