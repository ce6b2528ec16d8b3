#pragma once
// --under-load N[:TRANSPORT]: a transaction test (rr, crr, cc) with N stream connections
// beside it between the same two hosts, sockperf's under-load mode. The load is an ordinary stream test
// of its own (its transport, -P N, its CPUs from --load-cpu) on a second control connection, as --bidir's
// twin is: both are released together, the test's interval starts kLoadLeadS later and the load runs
// kLoadLeadS past its end, so every timed transaction waits behind the load. The server runs the load's
// receivers as it runs any stream test: it needs nothing new.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "control_client.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// Long enough for the load's connections to leave slow start on any path zcperf runs (loopback: ms).
inline constexpr double kLoadLeadS = 0.5;

struct UnderLoadOption {
    std::vector<int> counts;             // one test per count (0: alone), in the order given
    std::optional<Transport> transport;  // none: each test's own
};
// "1", "0,1,4", "4:tcp-msgzc", "0,1,4:tcp-msgzc". Throws std::invalid_argument saying what to give.
UnderLoadOption parse_under_load(const std::string& text);

// The load's own stream test for `test` (test.load.streams > 0): -P streams over the load's transport at
// its default -m, -l the test's plus kLoadLeadS either side, its threads on --load-cpu; nothing else of the
// test's tuning (its -C, --tos, --buffer, RDMA queue options stay the test's own).
TestSpec load_spec(const TestSpec& test);

// Why `test`'s load cannot run, naming what would ("" when it can): the load's stream test against the
// same capability rules as any test.
std::string load_problem(const TestSpec& test);

// --under-load against a server that does not list kFeatureUnderLoad (older, or --exclusive): the refusal,
// "" when it serves it.
std::string under_load_support_problem(const Welcome& welcome);

// Runs `test` with its load beside it (test.load.streams > 0, the load over load_control) and fills the
// result's under_load; a load that stopped before the test's interval ended is a warning of the result.
// before_start (zcperf-mpi's wait for the round's other pairs) runs once both are ready, before the load's
// release; the test starts kLoadLeadS after the load.
TestResult run_under_load(ControlClient& control, ControlClient& load_control, const TestSpec& test,
                          const std::function<void()>& before_start = {});

}  // namespace zc
