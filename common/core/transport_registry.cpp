#include "core/transport_registry.hpp"

#include <iterator>
#include <stdexcept>

namespace zc {

namespace {
#if ZCPERF_WITH_RDMA
constexpr bool kRdmaBuilt = true;
#else
constexpr bool kRdmaBuilt = false;
#endif
}  // namespace

namespace {
constexpr unsigned kStreams = bit(TestKind::stream) | bit(TestKind::maerts);
constexpr unsigned kAllTests = kStreams | bit(TestKind::rr) | bit(TestKind::msgrate);
constexpr unsigned kHost = bit(MemoryKind::host);
constexpr unsigned kGpuLike = bit(MemoryKind::cuda) | bit(MemoryKind::sim_gpu);
constexpr unsigned kAnyMemory = kHost | bit(MemoryKind::pinned) | kGpuLike;
constexpr auto kTcp = TransportKind::tcp;
constexpr auto kRsocket = TransportKind::rsocket;
constexpr auto kVerbs = TransportKind::verbs;
constexpr auto kUdp = TransportKind::udp;
}  // namespace

const std::vector<TransportInfo>& transport_table() {
    // tcp (send/recv) takes every memory kind (GPU memory staged through pinned slots); rsocket stages
    // GPU memory; the zero-copy TCP senders and rsocket-iomap hand over their own host pages; the
    // verbs transports register any memory (GPU memory directly where the NIC takes its dmabuf).
    static const std::vector<TransportInfo> table = {
        {Transport::tcp, "tcp", "TCP with copies: send() and recv() through the socket buffers", kTcp, kAllTests,
         nullptr, kAnyMemory, false, SendBuffer::message},
        {Transport::tcp_sendfile, "tcp-sendfile",
         "TCP, sender uses sendfile() from a memfd (netperf TCP_SENDFILE, iperf3 -Z)", kTcp, kStreams, nullptr, kHost,
         false, SendBuffer::file},
        {Transport::tcp_msgzc, "tcp-msgzc",
         "TCP, sender uses send(MSG_ZEROCOPY); completions and kernel copies counted", kTcp, kStreams, nullptr, kHost,
         false, SendBuffer::zc_ring},
        {Transport::tcp_uringzc, "tcp-uringzc", "TCP, sender uses io_uring SEND_ZC with usage reports", kTcp, kStreams,
         nullptr, kHost, false, SendBuffer::zc_ring},
        {Transport::rsocket, "rsocket", "rsockets rsend/rrecv: the socket API over RDMA, copies through its buffers",
         kRsocket, kStreams | bit(TestKind::rr),
         "rsockets copy each rsend into their own buffer and send in chunks of up to 64 KiB, so small messages are "
         "coalesced and their rate is a stream's. Use -T tcp, rdma-send or rdma-write",
         kHost | kGpuLike, false, SendBuffer::message, kRdmaBuilt},
        {Transport::rsocket_iomap, "rsocket-iomap", "rsockets riowrite into the receiver's riomap'ed buffer", kRsocket,
         kStreams,
         "riowrite lands data in a ring the receiver mapped, and each message then needs a notice (rsend) to say it "
         "is there, so every message is two transfers, a bulk path's trade. Use -T rsocket (rsend/rrecv) or -T "
         "rdma-write (one-sided writes, nothing else)",
         kHost, false, SendBuffer::message, kRdmaBuilt},
        {Transport::rdma_write, "rdma-write",
         "verbs RDMA WRITE into the receiver's registered ring, progress by immediate data", kVerbs, kAllTests, nullptr,
         kAnyMemory, true, SendBuffer::message, kRdmaBuilt},
        {Transport::rdma_send, "rdma-send", "verbs SEND into the receiver's posted receives, credit flow control",
         kVerbs, kAllTests, nullptr, kAnyMemory, true, SendBuffer::message, kRdmaBuilt},
        {Transport::rdma_read, "rdma-read", "verbs RDMA READ: the receiver pulls from the sender's registered buffer",
         kVerbs, kStreams,
         "an RDMA READ is one-sided, the side whose memory is read never sees a message, so there is nobody to "
         "answer or count (ib_read_lat times one read's round trip). Use -T rdma-send or -T rdma-write",
         kAnyMemory, true, SendBuffer::message, kRdmaBuilt},
        {Transport::udp, "udp",
         "UDP: one datagram per send() (--batch N: sendmmsg); loss, reordering, duplicates and jitter counted by the "
         "receiver from each datagram's sequence number",
         kUdp, kAllTests, nullptr, kHost, false, SendBuffer::message},
        {Transport::udp_gso, "udp-gso",
         "UDP GSO (UDP_SEGMENT): one send() carries up to 64 datagrams of --gso-size, cut by the kernel or the NIC",
         kUdp, kStreams,
         "GSO cuts one large buffer into many datagrams per call, a bulk sender's trade. Use -T udp (with --batch N "
         "for sendmmsg)",
         kHost, false, SendBuffer::message},
        {Transport::udp_msgzc, "udp-msgzc",
         "UDP GSO with MSG_ZEROCOPY: the kernel sends from our pages; completions and its copies counted", kUdp,
         kStreams,
         "MSG_ZEROCOPY pays off on large GSO buffers; a message test's small datagrams would only add completions. "
         "Use -T udp",
         kHost, false, SendBuffer::zc_ring},
    };
    return table;
}

std::vector<std::string> available_transports() {
    std::vector<std::string> out;
    for (const auto& t : transport_table())
        if (t.built) out.emplace_back(t.name);
    return out;
}

bool transport_built(Transport t) { return transport_info(t).built; }

Transport transport_from_name(std::string_view name) {
    std::string known;
    for (const auto& t : transport_table()) {
        if (name == t.name && t.built) return t.id;
        if (name == t.name) {
            throw std::invalid_argument("transport '" + std::string(name) +
                                        "' is not in this build: it was built without rdma-core (libibverbs, "
                                        "librdmacm); on Debian: apt-get install libibverbs-dev librdmacm-dev, "
                                        "then reconfigure and rebuild");
        }
        if (!t.built) continue;
        known += known.empty() ? "" : ", ";
        known += t.name;
    }
    throw std::invalid_argument("unknown transport '" + std::string(name) + "'; this build has: " + known);
}

const TransportInfo& transport_info(Transport t) {
    for (const auto& e : transport_table())
        if (e.id == t) return e;
    throw std::logic_error("transport " + std::to_string(static_cast<int>(t)) + " has no row in transport_table()");
}

const char* transport_name(Transport t) { return transport_info(t).name; }

namespace {
constexpr const char* kRxNames[] = {"copy", "zerocopy", "splice", "trunc", "mmsg", "gro"};
}

const char* rx_mode_name(RxMode m) { return kRxNames[static_cast<int>(m)]; }

RxMode rx_mode_from_name(std::string_view name) {
    for (int i = 0; i < static_cast<int>(std::size(kRxNames)); ++i)
        if (name == kRxNames[i]) return static_cast<RxMode>(i);
    throw std::invalid_argument("unknown receive mode '" + std::string(name) +
                                "'; use copy (recv), zerocopy (TCP_ZEROCOPY_RECEIVE), splice (to a pipe, "
                                "discarded) or trunc (MSG_TRUNC, discarded); UDP: copy, mmsg (recvmmsg) or gro "
                                "(UDP_GRO)");
}

}  // namespace zc
