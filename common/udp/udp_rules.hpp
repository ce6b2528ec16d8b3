#pragma once
// UDP's part of the one capability check (spec_problem, spec_rules.hpp) and of the server's memory
// check: the sizes UDP can carry, its host memory, --batch on its GSO rows; and its report block.
#include <cstdint>
#include <string>

#include <span>

#include "core/stream_counters.hpp"
#include "kind/transport_ops.hpp"
#include "protocol/run_spec.hpp"
#include "udp/udp_info.hpp"

namespace zc {

// Why this UDP half cannot run ("" when it can): its table's kind_problem. Where -b runs is every kind's rule
// (spec_rules.cpp's pacing_problem, over the rows' paced_tests: udp's msgrate too).
std::string udp_spec_problem(const HalfSpec& half, Role role);
uint64_t udp_buffer_bytes(const HalfSpec& half, Role role);
// A side's UDP report from its loops' summed counts: `interface` is the data's device, whose features say
// where GSO segments.
UdpInfo udp_info(const HalfSpec& half, Role role, const UdpCounts& counts, const std::string& interface);
// The udp block of a side into r.kinds from its loops' summed counts; an unpaced sender's note into its warnings.
void write_udp_block(const HalfSpec& half, Role role, const UdpCounts& counts, SideResult& r);

}  // namespace zc
