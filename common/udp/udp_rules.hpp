#pragma once
// UDP's part of the one capability check (spec_problem, spec_rules.hpp) and of the server's memory
// check: the sizes UDP can carry, its receive modes, and -b where another kind's loop would ignore it.
#include <cstdint>
#include <string>

#include <span>

#include "core/stream_counters.hpp"
#include "kind/transport_ops.hpp"
#include "protocol/run_spec.hpp"
#include "protocol/udp_info.hpp"

namespace zc {

// Why this UDP half cannot run ("" when it can): its table's kind_problem. UDP paces stream, maerts and
// msgrate senders (-b).
std::string udp_spec_problem(const HalfSpec& half, Role role);
uint64_t udp_buffer_bytes(const HalfSpec& half, Role role);
// A side's UDP report from its loops' summed counts and its streams' pacing (any paced sender's):
// `interface` is the data's device, whose features say where GSO segments.
UdpInfo udp_info(const HalfSpec& half, Role role, const UdpCounts& counts, const PacingCounts& pacing,
                 const std::string& interface);
// The udp block of a side into r.kinds: `counts` (the UDP loops' own; none for another kind) and the streams'
// pacing summed.
void write_udp_block(const HalfSpec& half, Role role, std::span<const KindStream> streams, const UdpCounts& counts,
                     SideResult& r);
// -b's figures travel in the udp block for every kind (their wire home since UDP brought them): a paced
// side whose kind wrote no udp block gets one with its streams' pacing alone (datagram_path false).
void paced_sender_block(const HalfSpec& half, Role role, std::span<const KindStream> streams, SideResult& r);

}  // namespace zc
