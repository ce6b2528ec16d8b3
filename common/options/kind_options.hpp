#pragma once
// A transport kind's own command-line options (seastar's network stacks each bring their option group):
// rows that write the kind's parameters (core/kind_params.hpp) or its client-side texts, which transports
// read them, and a check of them against the run as given, all registered by the kind's module (beside its
// operations table), so zcperf's rows and checks name no kind. client/cli.cpp refuses a group's option given
// where none of the transports takes it.
#include <map>
#include <string>
#include <vector>

#include "core/kind_params.hpp"
#include "core/transport_registry.hpp"
#include "core/workload.hpp"
#include "options/option_rows.hpp"

namespace zc {

using KindOptionValues = std::map<std::string, std::string>;  // TestParams::kind_options: name -> text

// Where a kind's rows write: the test's parameters, each side's, and the client's own texts.
struct KindOptionTargets {
    KindParams& params;        // TestParams::kind_params: both sides'
    KindParams& local;         // the client side's SideSpec::kind_params
    KindParams& remote;        // the server side's
    KindOptionValues& values;  // TestParams::kind_options: the client's alone, never on the wire
};

// What a kind's check may read of the run, before any test.
struct KindOptionRun {
    const KindParams& params;
    const KindOptionValues& values;
    std::vector<Transport> transports{};  // -T's, and --under-load's
    std::vector<Workload> tests{};        // -t's
    int streams = 1;                      // -P
    std::vector<std::string> hosts{};     // the servers' addresses; the embedded server's loopback without -H
    int family = 0;                       // -4: AF_INET, -6: AF_INET6, 0: either
    bool sends = false;                   // this client sends data (stream, rr, --bidir)
    bool receives = false;                // it receives data (maerts, rr, --bidir)
};

struct KindOptionGroup {
    const char* title;  // --help's section for its rows ("RDMA OPTIONS"; zcperf adds the rows that take them)
    OptionRows (*rows)(const KindOptionTargets& to);
    bool (*takes)(const TransportInfo& row);  // the transports that read them
    // Throws std::invalid_argument with what to do; nullptr: the rows' own checks are all.
    void (*check)(const KindOptionRun& run) = nullptr;
};

// A kind's module (kind/kind_module.hpp) holds its group; kind_option_groups() lists them all.

}  // namespace zc
