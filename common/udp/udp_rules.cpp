#include "udp/udp_rules.hpp"

#include <algorithm>

#include "protocol/udp_params.hpp"
#include "tcp/send_ring.hpp"
#include "udp/udp_receiver.hpp"
#include "udp/udp_socket.hpp"
#include "udp/udp_wire.hpp"

namespace zc {

namespace {
bool gso_transport(Transport t) { return gso_row(transport_info(t)); }
}  // namespace

std::string udp_spec_problem(const HalfSpec& h, Role) {
    const char* name = transport_name(h.transport);
    if (h.side.buffer.kind != MemoryKind::host)
        return std::string(name) + " uses host memory; --buffer " + buffer_spec_name(h.side.buffer) + " is not offered";
    const bool gso = gso_transport(h.transport);
    if (h.test == Workload::rr) {
        if (h.bitrate)
            return "-b paces a sender (stream, maerts, msgrate); rr has one message in flight per transaction";
        return udp_size_problem(h.message_size, 0, 0, false);
    }
    if (gso && h.batch != 1)
        return "--batch is udp's sendmmsg; " + std::string(name) + " already hands many datagrams to one call (GSO)";
    // The path MTU is known only once the socket is connected: the sender checks --gso-size against it then.
    return udp_size_problem(h.message_size, gso_size_of(h), 0, true);
}

uint64_t udp_buffer_bytes(const HalfSpec& h, Role role) {
    const uint64_t m = h.message_size;
    if (role == Role::send) {
        if (h.test == Workload::rr) return std::max<uint64_t>(m, kUdpSeqHeader);
        const TransportInfo& t = transport_info(h.transport);
        if (t.send_buffer == SendBuffer::zc_ring) return m * SendRing::slots_for(m);
        return m * (t.send_batch ? h.batch : 1);
    }
    if (h.test == Workload::rr) return std::max<uint64_t>(m, kUdpSeqHeader);
    if (h.rx == RxMode::gro) return 65536;
    uint64_t slot = std::max<uint64_t>(datagram_size_of(h), kUdpSeqHeader);
    return slot * (h.rx == RxMode::mmsg ? UdpReceiver::kBatch : 1);
}

UdpInfo udp_info(const HalfSpec& h, Role role, const UdpCounts& counts, const PacingCounts& pacing,
                 const std::string& interface) {
    UdpInfo u;
    u.used = true;
    u.counts = counts;
    u.bitrate = h.bitrate;
    u.pacing = pacing;
    if (!transport_info(h.transport).datagrams) return u;
    u.datagram_path = true;
    if (role == Role::send && gso_transport(h.transport)) u.gso_where = gso_segmentation_where(interface);
    if (role == Role::recv && h.test != Workload::rr) u.rx_mode = rx_mode_name(h.rx);
    return u;
}

void write_udp_block(const HalfSpec& h, Role role, std::span<const KindStream> streams, const UdpCounts& counts,
                     SideResult& r) {
    PacingCounts pacing;
    for (const KindStream& s : streams) pacing.add(s.counters->pacing);
    r.kinds[udp_block_type().key] = to_json(udp_info(h, role, counts, pacing, r.placement.interface));
}

void paced_sender_block(const HalfSpec& h, Role role, std::span<const KindStream> streams, SideResult& r) {
    if (!h.bitrate || r.kinds.contains(udp_block_type().key)) return;  // unpaced, or the udp kind's own
    write_udp_block(h, role, streams, {}, r);
}

}  // namespace zc
