#pragma once
// A transport kind's own command-line options (seastar's network stacks each bring their option group):
// rows that write TestParams::kind_options by name, and a check of them against the run as given, both
// registered by the kind's module (beside its operations table), so zcperf's rows and checks name no kind.
// The registry row's kind_options says which transports read which of them (client/cli.cpp refuses the
// rest).
#include <map>
#include <string>
#include <vector>

#include "options/option_rows.hpp"

namespace zc {

using KindOptionValues = std::map<std::string, std::string>;  // TestParams::kind_options: name -> text

// What a kind's check may read of the run, before any test.
struct KindOptionRun {
    const KindOptionValues& values;
    std::vector<std::string> hosts{};  // the servers' addresses; the embedded server's loopback without -H
    int family = 0;                    // -4: AF_INET, -6: AF_INET6, 0: either
    bool sends = false;                // this client sends data (stream, rr, --bidir)
    bool receives = false;             // it receives data (maerts, rr, --bidir)
};

struct KindOptionGroup {
    OptionRows (*rows)(KindOptionValues& values);  // each row writes its value into `values`
    // Throws std::invalid_argument with what to do; nullptr: the rows' own checks are all.
    void (*check)(const KindOptionRun& run) = nullptr;
};

// Called once per kind, from its module's static registration; returns true.
bool register_kind_options(const KindOptionGroup& group);
const std::vector<const KindOptionGroup*>& kind_option_groups();  // in registration order

}  // namespace zc
