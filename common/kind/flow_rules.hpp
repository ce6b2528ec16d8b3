#pragma once
// --flows' part of the one capability check (spec_problem, spec_rules.hpp): which rows, tests and
// options a side's flows loops (tcp/tcp_flows.hpp) serve.
#include <string>

#include "protocol/run_spec.hpp"

namespace zc {

// Why this half cannot run its flows > 1 ("" when it can, or when flows is 1).
std::string flows_problem(const HalfSpec& half);

}  // namespace zc
