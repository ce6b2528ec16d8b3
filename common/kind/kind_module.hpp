#pragma once
// A kind's behaviour, as one value: its description (its rows, block and parameters' field tables:
// core/kind_description.hpp), the operations tables that connect its rows and build their loops
// (kind/transport_ops.hpp), and its command-line option group. A kind defines one, `kind_module_<kind>`,
// beside its operations table in its folder; the program's list of kinds (generated from common/kinds.cmake,
// compiled into zcperf, zcserver, zcperf-mpi and the tests) defines kind_modules(). Nothing else lists kinds.
#include <span>
#include <string>
#include <vector>

#include "core/kind_description.hpp"
#include "kind/transport_ops.hpp"

namespace zc {

struct KindOptionGroup;  // options/kind_options.hpp

// One operations table of a kind and its name in --rx's help (the rdma kind has rsocket's and verbs').
struct KindTable {
    const char* name;
    const TransportOps* ops;
};

struct KindModule {
    const KindDescription* description;
    std::span<const KindTable> tables;  // a row's `table` picks one; empty: not in this build (its rows say why)
    std::span<const KindOptionGroup* const> options{};  // its option groups (--help's sections)
    // Its rules over its own options on any kind's half ("" none broken), which spec_problem asks of every half
    // (the tcp kind's: --flows and the TCP socket options on a row without them); nullptr: none.
    std::string (*half_problem)(const HalfSpec& half, Role role) = nullptr;
    // Its lines of zcperf --help's examples (each "  zcperf ..." with its words, as the others; nullptr: none),
    // after zcperf's own stream and message examples, in the kinds' order.
    const char* help_examples = nullptr;
};

// Every kind of this program, in the list's order (by name). Defined by the generated list of kinds.
std::span<const KindModule* const> kind_modules();

// The kinds' option groups, in the order of their titles (--help's kind sections).
const std::vector<const KindOptionGroup*>& kind_option_groups();

}  // namespace zc
