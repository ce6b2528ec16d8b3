#pragma once
// What one side's UDP path did (issue #27): the receiver's sequence accounting beside the kernel's word
// (the socket's drop count, /proc/net/snmp's Udp counters over the interval), GSO/GRO batching, where
// segmentation ran, and -b pacing (also for TCP: any paced sender). Empty for paths that are neither.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/pacer.hpp"
#include "core/udp_counts.hpp"

namespace zc {

struct UdpInfo {
    UdpCounts counts;       // summed over streams (jitter, GSO size, the host's snmp counters: the largest)
    std::string gso_where;  // sender: "device", "software", "none" (lo) or "" (no GSO / unknown)
    std::string rx_mode;    // receiver: "copy", "mmsg", "gro"
    // -b: the rate asked and how the sender kept it (zeros / none when unpaced).
    uint64_t bitrate = 0;
    PacingCounts pacing;

    bool used = false;           // a UDP path or a paced sender filled it
    bool datagram_path = false;  // a UDP path (datagrams may be lost), not only a paced sender

    bool empty() const { return !used; }
    // Receiver: lost as a share of what the sender sent (0 when nothing was sent).
    double loss_pct() const;
};

// A UDP stream test's two sides against each other: what the receiver counted (received + lost) must
// be what the sender sent, and the count the sender's end marker carried must be the sender's own.
// Returns the disagreement in words ("" when they agree). Bytes: the receiver's may only be fewer.
std::string udp_count_problem(const UdpInfo& tx, uint64_t tx_bytes, const UdpInfo& rx, uint64_t rx_bytes);
// The notes a UDP or paced test's report carries: the kernel's word beside the receiver's count
// (socket drops, the host's Udp RcvbufErrors/InErrors) and any disagreement; a missing end marker;
// the rate asked against the rate the sender achieved (`tx_rate_bps`) and how it was kept; an unpaced
// UDP sender said so. `rx` is empty for rr.
// `tx_rate_bps` is one stream's rate: -b is per stream, as iperf3's.
std::vector<std::string> udp_notes(const UdpInfo& tx, double tx_rate_bps, int streams, const UdpInfo& rx, bool is_udp);

nlohmann::json to_json(const UdpInfo& u);
UdpInfo udp_info_from_json(const nlohmann::json& j);  // throws ProtocolError naming a bad field

}  // namespace zc
