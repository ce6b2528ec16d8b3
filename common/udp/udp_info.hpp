#pragma once
// What one side's UDP path did: the receiver's sequence accounting beside the kernel's word
// (the socket's drop count, /proc/net/snmp's Udp counters over the interval), GSO/GRO batching, where
// segmentation ran. It is the udp kind's block (protocol/kind_block.hpp) under the key "udp", listed by the
// kind's description (udp/udp_kind.cpp). -b's figures are the side's pacing section (protocol/pacing_report.hpp).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "udp/udp_counts.hpp"
#include "protocol/kind_block.hpp"

namespace zc {

struct SideResult;

struct UdpInfo {
    UdpCounts counts;       // summed over streams (jitter, GSO size, the host's snmp counters: the largest)
    std::string gso_where;  // sender: "device", "software", "none" (lo) or "" (no GSO / unknown)
    std::string rx_mode;    // receiver: "copy", "mmsg", "gro"

    bool used = false;  // a UDP path filled it (false: the side has no udp block)
    // Sent as true by every UDP path: an older peer's paced TCP or RDMA sender sent a udp block for its -b
    // figures alone, with false, which reads as no datagram facts.
    bool datagram_path = false;

    bool empty() const { return !used; }
    // Receiver: lost as a share of what the sender sent (0 when nothing was sent).
    double loss_pct() const;
    // Receiver: the datagrams the sender sent, as its end marker said, else what arrived and what was lost.
    uint64_t sent_datagrams() const {
        return counts.end_marker ? counts.sender_datagrams : counts.datagrams + counts.lost;
    }
};

// A UDP stream test's two sides against each other: what the receiver counted (received + lost) must
// be what the sender sent, and the count the sender's end marker carried must be the sender's own.
// Returns the disagreement in words ("" when they agree). Bytes: the receiver's may only be fewer.
std::string udp_count_problem(const UdpInfo& tx, uint64_t tx_bytes, const UdpInfo& rx, uint64_t rx_bytes);
// A UDP stream test's notes from its two blocks (the block's check_sides): the kernel's word beside the
// receiver's count (socket drops, the host's Udp RcvbufErrors/InErrors) and any disagreement; a missing
// end marker. rr's receiver (no --rx mode) has none.
std::vector<std::string> udp_side_notes(const UdpInfo& tx, const UdpInfo& rx);

nlohmann::json to_json(const UdpInfo& u);
UdpInfo udp_info_from_json(const nlohmann::json& j);  // throws ProtocolError naming a bad field

// The block's table (key "udp"), which the kind's description lists (udp_info.cpp).
const KindBlockType& udp_block_type();
// A side's udp block, decoded (empty, used = false, where the side has none).
UdpInfo udp_block_of(const SideResult& side);

}  // namespace zc
