#pragma once
// Another test that ran on the same host as one side of this test, during that side's measured
// interval: its whole-host CPU figures count that test's work too. Found through the host's
// run directory (run/concurrent_tests.hpp), whoever ran it: another zcperf, a zcperf-mpi rank, or another
// session of the same zcserver.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace zc {

struct ConcurrentTest {
    std::string program;  // "zcperf", "zcserver", "zcperf-mpi"
    int pid = 0;
    std::string peer;       // its other side, as it named it
    std::string test;       // "tcp stream"
    double overlap_s = 0;   // of this side's measured interval
    std::vector<int> cpus;  // its data threads' CPUs (empty: not pinned)
    bool died = false;      // it ended without saying when (killed): it counts up to its file's last change
};

nlohmann::json to_json(const ConcurrentTest& t);
ConcurrentTest concurrent_test_from_json(const nlohmann::json& j);  // bounded; throws ProtocolError

// "zcperf pid 812 (peer 10.0.0.2:12875, tcp stream, CPUs 1) for 3.1 s"
std::string describe(const ConcurrentTest& t);

}  // namespace zc
