#include "protocol/concurrent_test.hpp"

#include <cstdio>

#include "protocol/field_table.hpp"
#include "system/cpu_list.hpp"

namespace zc {

namespace {

const auto kConcurrentTestFields = std::make_tuple(
    text("program", &ConcurrentTest::program, 64, "a program name"), number("pid", &ConcurrentTest::pid, 0, 1 << 30),
    text("peer", &ConcurrentTest::peer, 300, "a peer address"), text("test", &ConcurrentTest::test, 64, "a test name"),
    number("overlap_s", &ConcurrentTest::overlap_s, 0.0, 1e7), cpu_list("cpus", &ConcurrentTest::cpus),
    number("died", &ConcurrentTest::died, false, true, false));

}  // namespace

nlohmann::json to_json(const ConcurrentTest& t) { return encoded(t, kConcurrentTestFields); }

ConcurrentTest concurrent_test_from_json(const nlohmann::json& j) {
    return decoded<ConcurrentTest>(j, kConcurrentTestFields);
}

std::string describe(const ConcurrentTest& t) {
    std::string where = t.peer.empty() ? t.test : "peer " + t.peer + ", " + t.test;
    if (!t.cpus.empty()) where += ", CPUs " + format_cpu_list(t.cpus);
    // snprintf rather than fmt: the protocol files also build alone (the fuzzer links no fmt).
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", t.overlap_s);
    return t.program + " pid " + std::to_string(t.pid) + " (" + where + ") for " + secs + " s" +
           (t.died ? " (it died: counted up to its last sign of life)" : "");
}

}  // namespace zc
