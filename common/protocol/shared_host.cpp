#include "protocol/shared_host.hpp"

#include <cstdio>

#include "protocol/field_table.hpp"
#include "system/cpu_list.hpp"

namespace zc {

namespace {

const auto kSharedHostFields = std::make_tuple(
    text("program", &SharedHostTest::program, 64, "a program name"), number("pid", &SharedHostTest::pid, 0, 1 << 30),
    text("peer", &SharedHostTest::peer, 300, "a peer address"), text("test", &SharedHostTest::test, 64, "a test name"),
    number("overlap_s", &SharedHostTest::overlap_s, 0.0, 1e7), cpu_list("cpus", &SharedHostTest::cpus),
    number("died", &SharedHostTest::died, false, true, false));

}  // namespace

nlohmann::json to_json(const SharedHostTest& t) {
    nlohmann::json j;
    encode_fields(j, t, kSharedHostFields);
    return j;
}

SharedHostTest shared_host_test_from_json(const nlohmann::json& j) {
    SharedHostTest t;
    decode_fields(j, t, kSharedHostFields);
    return t;
}

std::string describe(const SharedHostTest& t) {
    std::string where = t.peer.empty() ? t.test : "peer " + t.peer + ", " + t.test;
    if (!t.cpus.empty()) where += ", CPUs " + format_cpu_list(t.cpus);
    // snprintf rather than fmt: the protocol files also build alone (the fuzzer links no fmt).
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", t.overlap_s);
    return t.program + " pid " + std::to_string(t.pid) + " (" + where + ") for " + secs + " s" +
           (t.died ? " (it died: counted up to its last sign of life)" : "");
}

}  // namespace zc
