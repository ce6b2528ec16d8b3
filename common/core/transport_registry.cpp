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
constexpr const char* kRdmaCore =
    "it was built without rdma-core (libibverbs, librdmacm); on Debian: apt-get install libibverbs-dev "
    "librdmacm-dev, then reconfigure and rebuild";

constexpr unsigned kStreams = bit(Workload::stream) | bit(Workload::maerts);
constexpr unsigned kAllTests = kStreams | bit(Workload::rr) | bit(Workload::msgrate);
// A connection per transaction (crr, cc): the kernel's connect/accept is what they measure, so TCP's alone.
constexpr unsigned kConnectionTests = bit(Workload::crr) | bit(Workload::cc);
constexpr unsigned kHost = bit(MemoryKind::host);
constexpr unsigned kGpuLike = bit(MemoryKind::cuda) | bit(MemoryKind::sim_gpu);
constexpr unsigned kAnyMemory = kHost | bit(MemoryKind::pinned) | kGpuLike;
constexpr const char* kTlsMessages =
    "each small message would be a TLS record of its own, one SSL call or kernel encryption each: rr measures "
    "that per transaction. Use -t rr";
constexpr int kMptcpProtocol = 262;  // IPPROTO_MPTCP (Linux 5.6+; glibc's headers name it only since 2.32)
}  // namespace

const std::vector<TransportInfo>& transport_table() {
    // tcp (send/recv) takes every memory kind (GPU memory staged through pinned slots); rsocket stages
    // GPU memory; the zero-copy TCP senders and rsocket-iomap hand over their own host pages; the
    // verbs transports register any memory (GPU memory directly where the NIC takes its dmabuf).
    // A TCP sender meets any TCP receiver (--rx), so the TCP rows differ in their sender only.
    static const std::vector<TransportInfo> table = {
        {.id = Transport::tcp,
         .name = "tcp",
         .summary = "TCP with copies: send() and recv() through the socket buffers",
         .kind = TransportKind::tcp,
         .tests = kAllTests | kConnectionTests,
         .buffers = kAnyMemory,
         .message_buffers = kAnyMemory,
         .send_batch = true,
         .flows = true,
         .tcp_sockets = true,
         .tcp_segments = true},
        {.id = Transport::tcp_sendfile,
         .name = "tcp-sendfile",
         .summary = "TCP, sender uses sendfile() from a memfd (netperf TCP_SENDFILE, iperf3 -Z)",
         .kind = TransportKind::tcp,
         .tests = kStreams,
         .buffers = kHost,
         .send_buffer = SendBuffer::file,
         .tcp_sockets = true,
         .tcp_segments = true},
        {.id = Transport::tcp_msgzc,
         .name = "tcp-msgzc",
         .summary = "TCP, sender uses send(MSG_ZEROCOPY); completions and kernel copies counted",
         .kind = TransportKind::tcp,
         .tests = kStreams,
         .buffers = kHost,
         .send_buffer = SendBuffer::zc_ring,
         .tcp_sockets = true,
         .tcp_segments = true},
        {.id = Transport::tcp_uringzc,
         .name = "tcp-uringzc",
         .summary = "TCP, sender uses io_uring SEND_ZC with usage reports",
         .kind = TransportKind::tcp,
         .tests = kStreams,
         .buffers = kHost,
         .send_buffer = SendBuffer::zc_ring,
         .tcp_sockets = true,
         .tcp_segments = true},
        {.id = Transport::rsocket,
         .name = "rsocket",
         .summary = "rsockets rsend/rrecv: the socket API over RDMA, copies through its buffers",
         .kind = TransportKind::rsocket,
         .tests = kStreams | bit(Workload::rr),
         .no_message_tests =
             "rsockets copy each rsend into their own buffer and send in chunks of up to 64 KiB, so small messages "
             "are coalesced and their rate is a stream's. Use -T tcp, rdma-send or rdma-write",
         .buffers = kHost | kGpuLike,
         .message_buffers = kHost,
         .rdma_op = RdmaOp::send,
         .needs = kRdmaCore,
         .built = kRdmaBuilt,
         .copy_path = "rsocket"},
        {.id = Transport::rsocket_iomap,
         .name = "rsocket-iomap",
         .summary = "rsockets riowrite into the receiver's riomap'ed buffer",
         .kind = TransportKind::rsocket,
         .tests = kStreams,
         .no_message_tests =
             "riowrite lands data in a ring the receiver mapped, and each message then needs a notice (rsend) to say "
             "it is there, so every message is two transfers, a bulk path's trade. Use -T rsocket (rsend/rrecv) or "
             "-T rdma-write (one-sided writes, nothing else)",
         .buffers = kHost,
         .rdma_op = RdmaOp::write,
         .needs = kRdmaCore,
         .built = kRdmaBuilt,
         .copy_path = "rsocket"},
        {.id = Transport::rdma_write,
         .name = "rdma-write",
         .summary = "verbs RDMA WRITE into the receiver's registered ring, progress by immediate data",
         .kind = TransportKind::verbs,
         .tests = kAllTests,
         .buffers = kAnyMemory,
         .message_buffers = kHost,
         .gpu_direct = true,
         .queue_pairs = true,
         .rdma_op = RdmaOp::write,
         .needs = kRdmaCore,
         .built = kRdmaBuilt},
        {.id = Transport::rdma_send,
         .name = "rdma-send",
         .summary = "verbs SEND into the receiver's posted receives, credit flow control",
         .kind = TransportKind::verbs,
         .tests = kAllTests,
         .buffers = kAnyMemory,
         .message_buffers = kHost,
         .gpu_direct = true,
         .queue_pairs = true,
         .rdma_op = RdmaOp::send,
         .needs = kRdmaCore,
         .built = kRdmaBuilt},
        {.id = Transport::rdma_read,
         .name = "rdma-read",
         .summary = "verbs RDMA READ: the receiver pulls from the sender's registered buffer",
         .kind = TransportKind::verbs,
         .tests = kStreams,
         .no_message_tests =
             "an RDMA READ is one-sided, the side whose memory is read never sees a message, so there is nobody to "
             "answer or count (ib_read_lat times one read's round trip). Use -T rdma-send or -T rdma-write",
         .buffers = kAnyMemory,
         .gpu_direct = true,
         .queue_pairs = true,
         .rdma_op = RdmaOp::read,
         .needs = kRdmaCore,
         .built = kRdmaBuilt},
        // UDP: host memory, --rx copy/mmsg/gro (udp_rules.cpp), every datagram numbered.
        {.id = Transport::udp,
         .name = "udp",
         .summary = "UDP: one datagram per send() (--batch N: sendmmsg); loss, reordering, duplicates and jitter "
                    "counted by the receiver from each datagram's sequence number",
         .kind = TransportKind::udp,
         .tests = kAllTests,
         .buffers = kHost,
         .message_buffers = kHost,
         .send_batch = true,
         .datagrams = true,
         .stream_size = 1472,  // a datagram that fits an Ethernet frame
         .msgrate_size = 16,   // the sequence header alone
         .copy_path = "udp"},
        {.id = Transport::udp_gso,
         .name = "udp-gso",
         .summary = "UDP GSO (UDP_SEGMENT): one send() carries up to 64 datagrams of --gso-size, cut by the kernel or "
                    "the NIC",
         .kind = TransportKind::udp,
         .tests = kStreams,
         .no_message_tests = "GSO cuts one large buffer into many datagrams per call, a bulk sender's trade. Use -T "
                             "udp (with --batch N for sendmmsg)",
         .buffers = kHost,
         .datagrams = true,
         .gso = true,
         .stream_size = 44 * 1472,  // 44 Ethernet-sized segments per call, under UDP's 65507
         .copy_path = "udp"},
        {.id = Transport::udp_msgzc,
         .name = "udp-msgzc",
         .summary = "UDP GSO with MSG_ZEROCOPY: the kernel sends from our pages; completions and its copies counted",
         .kind = TransportKind::udp,
         .tests = kStreams,
         .no_message_tests = "MSG_ZEROCOPY pays off on large GSO buffers; a message test's small datagrams would only "
                             "add completions. Use -T udp",
         .buffers = kHost,
         .send_buffer = SendBuffer::zc_ring,  // MSG_ZEROCOPY: a slot is reused after its completion
         .datagrams = true,
         .gso = true,
         .stream_size = 44 * 1472,
         .copy_path = "udp"},
        // MPTCP: the TCP kind's socket loops on IPPROTO_MPTCP sockets (common/mptcp/: its subflows reported).
        {.id = Transport::mptcp,
         .name = "mptcp",
         .summary = "Multipath TCP (IPPROTO_MPTCP): send() and recv(); each subflow's addresses and bytes reported",
         .kind = TransportKind::mptcp,
         .tests = kStreams | bit(Workload::rr) | bit(Workload::crr),
         .buffers = kHost,
         .message_buffers = kHost,
         .tcp_segments = true,
         .socket_protocol = kMptcpProtocol},
        {.id = Transport::mptcp_sendfile,
         .name = "mptcp-sendfile",
         .summary = "Multipath TCP, sender uses sendfile() from a memfd; each subflow reported",
         .kind = TransportKind::mptcp,
         .tests = kStreams,
         .buffers = kHost,
         .send_buffer = SendBuffer::file,
         .tcp_segments = true,
         .socket_protocol = kMptcpProtocol},
        // TLS: OpenSSL's handshake on TCP sockets (common/tls/), --tls-version and --tls-cipher on the client.
        {.id = Transport::tls,
         .name = "tls",
         .summary = "TLS in user space: OpenSSL's SSL_write/SSL_read, the copy and the crypto in the process",
         .kind = TransportKind::tls,
         .tests = kStreams | bit(Workload::rr),
         .no_message_tests = kTlsMessages,
         .buffers = kHost,
         .message_buffers = kHost,
         .tcp_sockets = true,
         .tcp_segments = true,
         .tls = TlsCrypto::user},
        {.id = Transport::ktls,
         .name = "ktls",
         .summary = "kernel TLS: OpenSSL's handshake, then send()/recv() with the kernel encrypting (TLS_TX/TLS_RX)",
         .kind = TransportKind::ktls,
         .tests = kStreams | bit(Workload::rr),
         .no_message_tests = kTlsMessages,
         .buffers = kHost,
         .message_buffers = kHost,
         .tcp_sockets = true,
         .tcp_segments = true,
         .tls = TlsCrypto::kernel},
        {.id = Transport::ktls_sendfile,
         .name = "ktls-sendfile",
         .summary = "kernel TLS, sender uses sendfile() from a memfd: encrypted from the file's pages, no user copy",
         .kind = TransportKind::ktls,
         .tests = kStreams,
         .buffers = kHost,
         .send_buffer = SendBuffer::file,
         .tcp_sockets = true,
         .tcp_segments = true,
         .tls = TlsCrypto::kernel},
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
        if (name == t.name)
            throw std::invalid_argument("transport '" + std::string(name) +
                                        "' is not in this build: " + not_built_reason(t));
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

std::string not_built_reason(const TransportInfo& t) {
    if (t.built) return "";
    return t.needs ? t.needs : "this build lacks what it needs";
}

std::string transport_help() {
    std::string text, missing;
    for (const auto& t : transport_table()) {
        if (!t.built) {
            missing += (missing.empty() ? "" : ", ") + std::string(t.name);
            continue;
        }
        std::string name = t.name;
        text += "\n  " + name + std::string(name.size() < 15 ? 15 - name.size() : 1, ' ') + t.summary;
    }
    if (!missing.empty()) text += "\n  not in this build: " + missing;
    return text;
}

namespace {
constexpr const char* kRxNames[] = {"copy", "zerocopy", "splice", "trunc", "mmsg", "gro"};
}

const char* rx_mode_name(RxMode m) { return kRxNames[static_cast<int>(m)]; }

RxMode rx_mode_from_name(std::string_view name) {
    for (int i = 0; i < static_cast<int>(std::size(kRxNames)); ++i)
        if (name == kRxNames[i]) return static_cast<RxMode>(i);
    std::string known;
    for (const char* n : kRxNames) known += (known.empty() ? "" : ", ") + std::string(n);
    throw std::invalid_argument("unknown receive mode '" + std::string(name) + "'; the modes are " + known +
                                " (--help's --rx says which transports take each)");
}

}  // namespace zc
