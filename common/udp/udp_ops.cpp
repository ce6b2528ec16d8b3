// The udp kind's operations table: a connected UDP socket per stream (udp/udp_setup.hpp: the hello
// with the token, answered from the stream's own socket), and the UDP loops on it, chosen by the
// transport's row (copy, GSO, GSO + MSG_ZEROCOPY), --rx (copy, mmsg, gro) and the test.
#include <any>
#include <stdexcept>

#include "kind/spec_rules.hpp"
#include "kind/kind_module.hpp"
#include "options/kind_options.hpp"
#include "udp/udp_options.hpp"
#include "udp/udp_params.hpp"
#include "udp/udp_rules.hpp"
#include "protocol/messages.hpp"
#include "tcp/tcp_socket.hpp"
#include "udp/udp_receiver.hpp"
#include "udp/udp_rr.hpp"
#include "udp/udp_sender.hpp"
#include "udp/udp_setup.hpp"

namespace zc {

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(5);

class Listener final : public KindListener {
public:
    Listener(const HalfSpec& half, const std::string& bind_address)
        : streams_(half.streams), udp_(bind_address, half.side.socket_buffer) {}
    uint16_t port() const override { return udp_.port(); }
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped) override {
        std::vector<UniqueFd> socks = udp_.accept(streams_, token, deadline, stopped);
        if (stopped.load()) throw std::runtime_error(kStoppedBeforeStart);
        if (static_cast<int>(socks.size()) < streams_) {
            throw std::runtime_error("only " + std::to_string(socks.size()) + " of " + std::to_string(streams_) +
                                     " UDP data streams said hello within 10 s (a firewall dropping UDP?)");
        }
        std::vector<DataConnection> out;
        for (auto& fd : socks) out.emplace_back(std::move(fd));
        return out;
    }

private:
    int streams_;
    UdpListener udp_;
};

std::unique_ptr<KindListener> listen(const HalfSpec& half, Role, const std::string& bind_address) {
    return std::make_unique<Listener>(half, bind_address);
}

std::vector<DataConnection> connect(const HalfSpec& half, Role, const PeerAddress& peer, uint64_t token) {
    std::vector<DataConnection> out;
    for (auto& fd :
         connect_udp_streams(peer.host, peer.port, half.streams, token, kConnectTimeout, half.side.socket_buffer))
        out.emplace_back(std::in_place_type<UniqueFd>, std::move(fd));
    return out;
}

int socket_of(DataConnection& conn) {
    int fd = tcp_fd(conn);  // the plain socket the data connection holds
    if (fd < 0) throw std::logic_error("a udp path needs its UDP socket");
    return fd;
}

void require_runnable(const HalfSpec& h, Role role) {
    if (std::string why = spec_problem(h, role); !why.empty()) throw std::runtime_error(why);
}

UdpSendOptions send_options(const HalfSpec& h) {
    UdpSendOptions o;
    o.bytes_per_call = h.message_size;
    const TransportInfo& row = transport_info(h.transport);
    o.gso = gso_row(row);
    o.zerocopy = row.send_buffer == SendBuffer::zc_ring;  // udp-msgzc: MSG_ZEROCOPY from a ring
    o.gso_size = gso_size_of(h);
    o.batch = h.batch;
    o.bitrate = h.bitrate;
    o.alignment = h.alignment;
    o.count_messages = h.test == Workload::msgrate;
    return o;
}

UdpRecvOptions recv_options(const HalfSpec& h) {
    UdpRecvOptions o;
    o.mode = h.rx == RxMode::gro ? UdpRxMode::gro : h.rx == RxMode::mmsg ? UdpRxMode::mmsg : UdpRxMode::copy;
    o.datagram_size = datagram_size_of(h);
    o.alignment = h.alignment;
    o.count_messages = h.test == Workload::msgrate;
    return o;
}

void make_send(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    require_runnable(h, Role::send);
    loop.emplace<UdpSender>(socket_of(conn), send_options(h));
}

void make_recv(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    require_runnable(h, Role::recv);
    loop.emplace<UdpReceiver>(socket_of(conn), recv_options(h));
}

// rr: a datagram each way per transaction; msgrate: the stream loops counting datagrams as messages.
void make_exchange(StreamLoop& loop, const HalfSpec& h, Role role, DataConnection& conn, LatencyHistogram& rtt) {
    require_runnable(h, role);
    int fd = socket_of(conn);
    if (h.test == Workload::rr && role == Role::send)
        loop.emplace<UdpRrInitiator>(fd, h.message_size, h.alignment, rtt);
    else if (h.test == Workload::rr)
        loop.emplace<UdpRrResponder>(fd, h.message_size, h.alignment);
    else if (role == Role::send)
        loop.emplace<UdpSender>(fd, send_options(h));
    else
        loop.emplace<UdpReceiver>(fd, recv_options(h));
}

std::string address_of(const DataConnection& conn) {
    int fd = tcp_fd(conn);
    return fd >= 0 ? local_address(fd) : std::string();
}

// The sender is named by its transport, the receiver by its --rx mode.
std::string name_of_path(const HalfSpec& h, Role role) {
    return role == Role::send || h.test == Workload::rr ? transport_name(h.transport)
                                                        : std::string("rx-") + rx_mode_name(h.rx);
}

void settings_in_force(const HalfSpec&, Role, const DataConnection& conn, SideResult& r) {
    int fd = tcp_fd(conn);
    if (fd < 0) return;
    auto [snd, rcv] = socket_buffers(fd);
    r.socket_send_buffer = snd;
    r.socket_recv_buffer = rcv;
}

// Each loop's own counts (the loops this table builds), read as it ended.
std::any loop_counts(const StreamLoop& loop) {
    if (const auto* s = loop.get_if<UdpSender>()) return s->udp_counts();
    if (const auto* r = loop.get_if<UdpReceiver>()) return r->udp_counts();
    if (const auto* i = loop.get_if<UdpRrInitiator>()) return i->udp_counts();
    return UdpCounts{};  // rr's responder counts no datagrams of its own
}

// The side's block: its loops' counts summed, where GSO segments.
void read_block(const HalfSpec& h, Role role, std::span<const KindStream> streams, SideResult& r) {
    UdpCounts counts;
    for (const KindStream& s : streams)
        if (const auto* c = std::any_cast<UdpCounts>(s.kind_counts)) counts.add(*c);  // none: a stream that never ran
    write_udp_block(h, role, counts, r);
}

}  // namespace

// --rx over UDP (udp_rules.cpp sizes their buffers, make_recv picks the receiver).
// Its msgrate receiver is the stream receiver counting datagrams, so it takes every mode.
constexpr unsigned kUdpRxTests = kStreams | bit(Workload::msgrate);
constexpr RxModeRow kUdpRxModes[] = {{RxMode::copy, "a datagram per recvmsg", true, kUdpRxTests},
                                     {RxMode::mmsg, "recvmmsg, 64 per call", true, kUdpRxTests},
                                     {RxMode::gro, "UDP_GRO: coalesced datagrams", true, kUdpRxTests}};

const TransportOps kUdpOps = {.listen = listen,
                              .connect = connect,
                              .make_send = make_send,
                              .make_recv = make_recv,
                              .make_exchange = make_exchange,
                              .local_address = address_of,
                              .path_name = name_of_path,
                              .settings_in_force = settings_in_force,
                              .buffer_bytes = udp_buffer_bytes,
                              .kind_block = read_block,
                              .loop_counts = loop_counts,
                              .kind_problem = udp_spec_problem,
                              .rx_modes = kUdpRxModes};

extern const KindDescription kind_description_udp;  // udp_kind.cpp
extern const KindModule kind_module_udp;
namespace {
const KindTable kUdpTables[] = {{"udp", &kUdpOps}};
}  // namespace
const KindOptionGroup* const kUdpOptionGroups[] = {&udp_option_group()};
// zcperf --help's examples of the kind.
constexpr const char* kUdpExamples =
    "  zcperf -T udp -b 1G -l 5               1472-byte UDP datagrams paced at 1 Gbit/s: loss, reordering,\n"
    "                                         duplicates and jitter from the sequence numbers, beside the\n"
    "                                         kernel's drop counts (SO_RXQ_OVFL, /proc/net/snmp)\n"
    "  zcperf -T udp,udp-gso,udp-msgzc --gso-size 1472 --rx gro\n"
    "                                         one datagram per call vs GSO (44 segments per call) vs GSO with\n"
    "                                         MSG_ZEROCOPY, received with UDP_GRO's coalesced buffers\n";
const KindModule kind_module_udp{.description = &kind_description_udp,
                                 .tables = kUdpTables,
                                 .options = kUdpOptionGroups,
                                 .help_examples = kUdpExamples};

}  // namespace zc
