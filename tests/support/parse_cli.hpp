#pragma once
// The unit tests' way to run zcperf's option parser on "zcperf ARGS...", with CLI11's and our own
// messages swallowed: one helper for every test file that parses a command line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli.hpp"

namespace zc::test {

inline int parse(const std::vector<std::string>& args, ClientOptions& o) {
    std::vector<std::string> store{"zcperf"};
    store.insert(store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : store) argv.push_back(s.data());
    argv.push_back(nullptr);
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    int rc = parse_client_options(static_cast<int>(store.size()), argv.data(), o);
    ::testing::internal::GetCapturedStdout();
    ::testing::internal::GetCapturedStderr();
    return rc;
}

inline int parse(const std::vector<std::string>& args) {
    ClientOptions o;
    return parse(args, o);
}

}  // namespace zc::test
