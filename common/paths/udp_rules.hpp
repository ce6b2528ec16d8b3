#pragma once
// UDP's part of the one capability check (spec_problem, spec_rules.hpp) and of the server's memory
// check: the sizes UDP can carry, its receive modes, and the options that belong to other kinds.
#include <cstdint>
#include <string>

#include "core/stream_counters.hpp"
#include "protocol/run_spec.hpp"
#include "protocol/udp_info.hpp"

namespace zc {

// Why this UDP half cannot run ("" when it can). Also the cross-kind rules: --rx mmsg/gro and
// --gso-size are UDP's; -b paces stream, maerts and msgrate senders.
std::string udp_spec_problem(const HalfSpec& half, Role role);
// The options of other kinds a non-UDP half must not carry ("" when it does not).
std::string udp_options_problem(const HalfSpec& half);
uint64_t udp_buffer_bytes(const HalfSpec& half, Role role);
// A side's UDP report from its streams' summed counters (and, for any paced sender, its pacing):
// `interface` is the data's device, whose features say where GSO segments.
UdpInfo udp_info(const HalfSpec& half, Role role, const StreamCounters& total, const std::string& interface);

}  // namespace zc
