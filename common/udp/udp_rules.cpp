#include "udp/udp_rules.hpp"

#include <algorithm>

#include "udp/udp_params.hpp"
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
    if (h.test == Workload::rr) return udp_size_problem(h.message_size, 0, 0, false);
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
        return m * ((t.batch_tests & bit(h.test)) ? h.batch : 1);
    }
    if (h.test == Workload::rr) return std::max<uint64_t>(m, kUdpSeqHeader);
    if (h.rx == RxMode::gro) return 65536;
    uint64_t slot = std::max<uint64_t>(datagram_size_of(h), kUdpSeqHeader);
    return slot * (h.rx == RxMode::mmsg ? UdpReceiver::kBatch : 1);
}

UdpInfo udp_info(const HalfSpec& h, Role role, const UdpCounts& counts, const std::string& interface) {
    UdpInfo u;
    u.used = true;
    u.counts = counts;
    u.datagram_path = true;
    if (role == Role::send && gso_transport(h.transport)) u.gso_where = gso_segmentation_where(interface);
    if (role == Role::recv && h.test != Workload::rr) u.rx_mode = rx_mode_name(h.rx);
    return u;
}

void write_udp_block(const HalfSpec& h, Role role, const UdpCounts& counts, SideResult& r) {
    r.kinds[udp_block_type().key] = to_json(udp_info(h, role, counts, r.placement.interface));
    if (role == Role::send && !h.bitrate && counts.datagrams) {
        r.warnings.push_back(
            "UDP without -b: the sender sends as fast as it can, so the receiver's share of it (the loss) "
            "is part of the figure; give -b RATE for a paced test");
    }
}

}  // namespace zc
