#pragma once
// Access to tests/fixtures/ for the unit tests.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace zc::test {

inline std::string fixture_path(const std::string& name) { return std::string(ZCPERF_FIXTURES) + "/" + name; }

inline std::string read_fixture(const std::string& name) {
    std::ifstream in(fixture_path(name));
    if (!in) throw std::runtime_error("missing fixture " + fixture_path(name));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace zc::test
