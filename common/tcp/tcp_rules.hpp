#pragma once
// The tcp kind's rules over its own options on any kind's half (its module's half_problem, which spec_problem
// asks of every half): --flows' rows, tests and options (a side's flows loops: tcp/tcp_flows.hpp), and -C,
// --fq-rate, --tos and --bind-dev, which set kernel TCP sockets.
#include <string>

#include "protocol/run_spec.hpp"

namespace zc {

// Whether the row serves --flows N (a stream thread drives N connections through one epoll with send()/recv()
// copies: tcp/tcp_flows.hpp): the tcp kind's copy path.
bool takes_flows(const TransportInfo& row);
// Why this half cannot run its flows > 1 ("" when it can, or when flows is 1).
std::string flows_problem(const HalfSpec& half);
// flows_problem, then the TCP socket options on a row without TCP sockets.
std::string tcp_options_problem(const HalfSpec& half, Role role);

}  // namespace zc
