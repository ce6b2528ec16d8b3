#pragma once
// --bidir (iperf3's): a stream test and its maerts twin at once, each over its own control connection
// and data connections, both released together once both are ready (RunHooks::before_start), so the
// two directions overlap from their first byte. Each is a whole test with its own counts and CPU.
#include <utility>

#include "control_client.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// `spec` is the client-to-server direction (stream); the twin is the same test as maerts. Both results
// carry bidir_with and the sum of both. Throws what either direction threw (the other is stopped).
std::pair<TestResult, TestResult> run_bidir(ControlClient& forward, ControlClient& reverse, const TestSpec& spec);

}  // namespace zc
