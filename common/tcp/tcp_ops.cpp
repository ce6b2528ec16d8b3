// The tcp kind's operations table: TCP data connections (listen, accept with the token, connect) and
// the TCP loops, chosen by the transport's row (which sender), --rx (which receiver) and --buffer.
#include "tcp/tcp_ops.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "kind/spec_rules.hpp"
#include "kind/kind_module.hpp"
#include "options/kind_options.hpp"
#include "tcp/tcp_rules.hpp"
#include "socket/stream_memory.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "tcp/tcp_report.hpp"
#include "tcp/send_ring.hpp"
#include "tcp/tcp_crr.hpp"
#include "tcp/tcp_info.hpp"
#include "tcp/tcp_msg_zerocopy.hpp"
#include "tcp/tcp_msgrate.hpp"
#include "tcp/tcp_options.hpp"
#include "tcp/tcp_params.hpp"
#include "tcp/tcp_rx_discard.hpp"
#include "tcp/tcp_rx_zerocopy.hpp"
#include "tcp/tcp_sendfile.hpp"
#include "tcp/tcp_socket.hpp"
#include "tcp/tcp_flows.hpp"
#include "tcp/tcp_tuning.hpp"
#include "tcp/tcp_uring_zc.hpp"

namespace zc {

namespace {

constexpr auto kStallTimeout = std::chrono::seconds(10);  // a TCP data socket's longest silence
constexpr auto kConnectTimeout = std::chrono::seconds(5);

// What this half asks of its data sockets (-C, --fq-rate, --tos, --bind-dev). --bind-dev names the
// client's interface only: the server's socket answers on whatever the client reached.
TcpTuning client_tuning(const HalfSpec& h) {
    const TcpParams& p = tcp_params(h);
    return TcpTuning{p.congestion, p.max_pacing_Bps, p.tos, tcp_side_params(h.side).bind_dev};
}
TcpTuning server_tuning(const HalfSpec& h) {
    const TcpParams& p = tcp_params(h);
    return TcpTuning{p.congestion, p.max_pacing_Bps, p.tos, {}};
}

// Accepts TCP data connections until `wanted` have presented the token, before the deadline. Pending
// connections are read side by side, so a stray one that stays silent delays nobody.
std::vector<UniqueFd> accept_tcp(int listener, int wanted, uint64_t token,
                                 std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& stopped) {
    struct Pending {
        UniqueFd fd;
        uint64_t got = 0;
        size_t have = 0;
    };
    std::vector<UniqueFd> ready;
    std::vector<Pending> pending;
    while (static_cast<int>(ready.size()) < wanted && !stopped.load()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        std::vector<pollfd> fds{{listener, POLLIN, 0}};
        for (const auto& p : pending) fds.push_back({p.fd.get(), POLLIN, 0});
        if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left.count(), 100))) <= 0) continue;
        for (size_t i = fds.size() - 1; i >= 1; --i) {
            if (!fds[i].revents) continue;
            Pending& p = pending[i - 1];
            ssize_t n =
                ::recv(p.fd.get(), reinterpret_cast<char*>(&p.got) + p.have, sizeof(p.got) - p.have, MSG_DONTWAIT);
            bool drop = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
            if (n > 0) p.have += static_cast<size_t>(n);
            if (p.have == sizeof(p.got)) {
                if (p.got == token) ready.push_back(std::move(p.fd));
                drop = true;  // ours and taken, or a stray with the wrong token
            }
            if (drop) pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i - 1));
        }
        if (fds[0].revents & POLLIN) {
            int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0 && pending.size() < 1024)
                pending.push_back({UniqueFd(fd), 0, 0});
            else if (fd >= 0)
                ::close(fd);
        }
    }
    return ready;
}

// --flows: the streams' connections in sets of `flows`, one set per stream thread. Which flows share a
// thread is this side's own choice (the two sides compare flows as a multiset, run_driver.cpp).
std::vector<DataConnection> as_flow_sets(std::vector<UniqueFd> fds, int flows) {
    std::vector<DataConnection> out;
    for (size_t i = 0; i < fds.size(); i += static_cast<size_t>(flows)) {
        TcpFlowSockets set;
        for (size_t k = i; k < i + static_cast<size_t>(flows) && k < fds.size(); ++k)
            set.fds.push_back(std::move(fds[k]));
        out.emplace_back(make_kind_connection<TcpFlowSockets>(std::move(set)));
    }
    return out;
}

class TcpListener final : public KindListener {
public:
    TcpListener(const HalfSpec& half, const std::string& bind_address, const StreamSocket& socket, bool keep_listening)
        : flows_(tcp_params(half).flows),
          wanted_(static_cast<int>(data_connections(half))),
          per_transaction_(is_connection_test(half.test)),
          keep_listening_(keep_listening),
          tuning_(server_tuning(half)) {
        // crr, cc: the same listener takes every transaction's connection, up to one per stream at once
        // (and the goodbyes): the system's largest backlog keeps a burst from being dropped. A listener
        // kept open takes the connections' later joins (each a SYN in its queue) the same way.
        int backlog = per_transaction_ || keep_listening_ ? SOMAXCONN : wanted_;
        auto [fd, port] = listen_tcp(bind_address, 0, backlog, half.side.socket_buffer, socket);
        fd_ = std::move(fd);
        port_ = port;
    }
    uint16_t port() const override { return port_; }
    bool keeps_listening() const override { return keep_listening_; }
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped) override {
        std::vector<UniqueFd> tcp = accept_tcp(fd_.get(), wanted_, token, deadline, stopped);
        if (stopped.load()) throw std::runtime_error(kStoppedBeforeStart);
        if (static_cast<int>(tcp.size()) < wanted_) {
            throw std::runtime_error("only " + std::to_string(tcp.size()) + " of " + std::to_string(wanted_) +
                                     " data connections arrived within 10 s (a firewall between the hosts?)");
        }
        std::vector<DataConnection> out;
        if (per_transaction_) {
            // Each stream serves transactions from its own descriptor of the one listener (the kernel gives
            // each accept() to one of them); the receive timeout bounds accept() and, inherited, every
            // accepted socket's reads, as the settings are inherited. The streams' own connections only
            // told the client where to connect.
            set_receive_timeout(fd_.get(), kStallTimeout);
            if (tuning_.any()) apply_tcp_tuning(fd_.get(), tuning_);
            for (size_t i = 0; i < tcp.size(); ++i) {
                UniqueFd listener(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0));
                if (!listener)
                    throw std::runtime_error(std::string("dup of the data listener: ") + std::strerror(errno));
                out.emplace_back(std::move(listener));
            }
            fd_.reset();
            return out;
        }
        if (!keep_listening_) fd_.reset();
        for (auto& fd : tcp) {
            if (tuning_.any()) apply_tcp_tuning(fd.get(), tuning_);         // -C, --fq-rate, --tos: both sides
            if (flows_ == 1) set_receive_timeout(fd.get(), kStallTimeout);  // flow sets wait in epoll instead
        }
        if (flows_ > 1) return as_flow_sets(std::move(tcp), flows_);
        for (auto& fd : tcp) out.emplace_back(std::move(fd));
        return out;
    }

private:
    int flows_, wanted_;  // connections per stream; all the half's connections
    bool per_transaction_;
    bool keep_listening_;  // open after accept, for joins on the same address and port
    TcpTuning tuning_;
    UniqueFd fd_;
    uint16_t port_ = 0;
};

std::unique_ptr<KindListener> listen(const HalfSpec& half, Role, const std::string& bind_address) {
    return std::make_unique<TcpListener>(half, bind_address, StreamSocket{}, false);
}

std::vector<DataConnection> connect(const HalfSpec& half, Role, const PeerAddress& peer, uint64_t token) {
    return connect_stream_sockets(half, peer, token, StreamSocket{});
}

}  // namespace

std::vector<DataConnection> connect_stream_sockets(const HalfSpec& half, const PeerAddress& peer, uint64_t token,
                                                   const StreamSocket& socket) {
    std::vector<UniqueFd> fds;
    // The data follows the control connection's address family (-4/-6 chose it).
    const std::string& a = peer.address;
    int family = a.find(':') != std::string::npos ? AF_INET6 : !a.empty() ? AF_INET : AF_UNSPEC;
    for (uint64_t i = 0; i < data_connections(half); ++i) {
        Endpoint to{peer.host, peer.port, family, socket};
        UniqueFd fd = connect_tcp(to, kConnectTimeout, half.side.socket_buffer, client_tuning(half));
        write_all(fd.get(), std::string_view(reinterpret_cast<const char*>(&token), sizeof(token)), kConnectTimeout);
        set_receive_timeout(fd.get(), kStallTimeout);
        fds.push_back(std::move(fd));
    }
    if (int flows = tcp_params(half).flows; flows > 1) return as_flow_sets(std::move(fds), flows);
    std::vector<DataConnection> out;
    for (auto& fd : fds) out.emplace_back(std::in_place_type<UniqueFd>, std::move(fd));
    return out;
}

namespace {

void require_runnable(const HalfSpec& h, Role role) {
    if (std::string why = spec_problem(h, role); !why.empty()) throw std::runtime_error(why);
}

int socket_of(DataConnection& conn) {
    int fd = tcp_fd(conn);
    if (fd < 0) throw std::logic_error("a tcp path needs a TCP data connection");
    return fd;
}

// --flows: one loop over the stream's set of connections (spec_problem kept it to the tests it serves).
void make_flows_loop(StreamLoop& loop, const HalfSpec& h, Role role, const TcpFlowSockets& set, LatencyHistogram* rtt) {
    require_runnable(h, role);
    std::vector<int> fds;
    for (const auto& fd : set.fds) fds.push_back(fd.get());
    const size_t m = h.message_size, align = h.alignment;
    if (rtt && role == Role::send)
        loop.emplace<TcpFlowsRrInitiator>(fds, m, align, *rtt);
    else if (rtt)
        loop.emplace<TcpFlowsRrResponder>(fds, m, align);
    else if (role == Role::send)
        loop.emplace<TcpFlowsSender>(fds, m, align);
    else  // no SO_RCVLOWAT: 1000 flows x 256 KiB queued each ran slower on loopback (the data went cold)
        loop.emplace<TcpFlowsReceiver>(fds, m, align);
}

void make_send(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    if (const auto* set = kind_connection_if<TcpFlowSockets>(conn))
        return make_flows_loop(loop, h, Role::send, *set, nullptr);
    make_tcp_send(loop, h, socket_of(conn));
}
void make_recv(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    if (const auto* set = kind_connection_if<TcpFlowSockets>(conn))
        return make_flows_loop(loop, h, Role::recv, *set, nullptr);
    make_tcp_recv(loop, h, socket_of(conn));
}
void make_exchange(StreamLoop& loop, const HalfSpec& h, Role role, DataConnection& conn, LatencyHistogram& rtt) {
    if (const auto* set = kind_connection_if<TcpFlowSockets>(conn)) return make_flows_loop(loop, h, role, *set, &rtt);
    make_tcp_exchange(loop, h, role, socket_of(conn), rtt);
}

std::string address_of(const DataConnection& conn) {
    int fd = tcp_fd(conn);
    return fd >= 0 ? local_address(fd) : std::string();
}

// The sender is named by its transport, the receiver by its --rx mode (any TCP sender meets any receiver).
std::string name_of_path(const HalfSpec& h, Role role) {
    return role == Role::send ? transport_name(h.transport) : std::string("rx-") + rx_mode_name(h.rx);
}

void settings_in_force(const HalfSpec&, Role, const DataConnection& conn, SideResult& r) {
    int fd = tcp_fd(conn);
    if (fd < 0) return;
    auto [snd, rcv] = socket_buffers(fd);
    r.socket_send_buffer = snd;
    r.socket_recv_buffer = rcv;
}

// TCP_INFO of each of the stream's connections: every one of its --flows, else its one.
using StreamTcpInfo = std::vector<TcpInfo>;
StreamTcpInfo read_stream_tcp_info(const DataConnection& conn) {
    StreamTcpInfo out;
    if (const auto* set = kind_connection_if<TcpFlowSockets>(conn)) {
        out.reserve(set->fds.size());
        for (const UniqueFd& fd : set->fds) out.push_back(read_tcp_info(fd.get()));
    } else {
        out.push_back(read_tcp_info(tcp_fd(conn)));
    }
    return out;
}

// A stream's TCP_INFO between two readings: its connections as one (--flows: counts and rates summed,
// RTT and cwnd averaged), not its first connection's alone; one connection's summary is its own sample.
TcpSample stream_sample(const StreamTcpInfo& before, const StreamTcpInfo& after, double interval_s) {
    std::vector<TcpSample> flows;
    for (size_t i = 0; i < before.size() && i < after.size(); ++i)
        flows.push_back(tcp_sample(before[i], after[i], interval_s));
    return tcp_summary(flows);
}

// The stream's TCP_INFO at its start: none for crr and cc, whose transactions each open their own.
std::any stream_reading(const HalfSpec& h, const DataConnection& conn) {
    if (is_connection_test(h.test)) return {};
    return read_stream_tcp_info(conn);
}

// Each stream's TCP_INFO over one --interval, as the TCP block (rcv_lowat and the settings are the side's).
void interval_block(std::span<const std::any> before, std::span<const std::any> after, double interval_s,
                    KindBlocks& blocks) {
    TcpSideReport tcp;
    for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
        const auto *a = std::any_cast<StreamTcpInfo>(&before[i]), *b = std::any_cast<StreamTcpInfo>(&after[i]);
        if (a && b) tcp.streams.push_back(stream_sample(*a, *b, interval_s));
    }
    if (!tcp.empty()) blocks[tcp_block_type().key] = to_json(tcp);
}

// --flows: the bytes each of the stream's connections moved, read as its loop ends (for the block's flow_bytes).
struct FlowBytes {
    std::vector<uint64_t> bytes;
};
template <class... Loops>
const TcpFlowSet* flow_set_of(const StreamLoop& loop) {
    const TcpFlowSet* set = nullptr;
    ((set = set ? set : loop.get_if<Loops>()), ...);
    return set;
}
std::any loop_counts(const StreamLoop& loop) {
    const TcpFlowSet* set =
        flow_set_of<TcpFlowsSender, TcpFlowsReceiver, TcpFlowsRrInitiator, TcpFlowsRrResponder>(loop);
    return set ? std::any(FlowBytes{set->flow_bytes()}) : std::any();
}

LatencyHistogram connect_latency(const StreamLoop& loop) {
    const auto* crr = loop.get_if<TcpCrrInitiator>();
    return crr ? crr->connect_latency() : LatencyHistogram{};
}

uint64_t bytes_per_stream(const HalfSpec& h, Role role) {
    const uint64_t m = h.message_size;
    if (is_message_test(h.test)) return message_test_bytes(h, role);
    if (h.side.buffer.gpu_like()) return staged_socket_bytes(m);
    if (role == Role::send) {
        return m * (transport_info(h.transport).send_buffer == SendBuffer::zc_ring ? SendRing::slots_for(m) : 1);
    }
    switch (h.rx) {
        case RxMode::copy:
            return m;
        case RxMode::zerocopy:
            return m + std::min<uint64_t>(m, 1 << 20);
        case RxMode::splice:
            return std::min<uint64_t>(std::max<uint64_t>(m, 65536), 1 << 20);  // the pipe
        case RxMode::trunc:
            return 0;
        default:
            break;  // not one of kTcpRxModes (rx_mode_problem refused it)
    }
    return m;
}

}  // namespace

// --rx over TCP (make_tcp_recv builds each one's receiver, bytes_per_stream sizes it).
constexpr RxModeRow kTcpRxModes[] = {{RxMode::copy, "recv"},
                                     {RxMode::zerocopy, "TCP_ZEROCOPY_RECEIVE", false},
                                     {RxMode::splice, "into a pipe, discarded", false},
                                     {RxMode::trunc, "MSG_TRUNC, discarded", false}};

const TransportOps kTcpOps = {.listen = listen,
                              .connect = connect,
                              .make_send = make_send,
                              .make_recv = make_recv,
                              .make_exchange = make_exchange,
                              .local_address = address_of,
                              .path_name = name_of_path,
                              .settings_in_force = settings_in_force,
                              .buffer_bytes = bytes_per_stream,
                              .stream_reading = stream_reading,
                              .interval_block = interval_block,
                              .connect_latency = connect_latency,
                              .kind_block = write_tcp_block,
                              .loop_counts = loop_counts,
                              .rx_modes = kTcpRxModes};

void write_tcp_block(const HalfSpec& h, Role role, std::span<const KindStream> streams, SideResult& r) {
    TcpSideReport tcp;
    for (const KindStream& s : streams)
        if (const auto* start = std::any_cast<StreamTcpInfo>(s.at_start))
            tcp.streams.push_back(stream_sample(*start, read_stream_tcp_info(*s.conn), r.elapsed_s));
    if (!tcp.streams.empty()) tcp.connections_per_stream = static_cast<uint32_t>(tcp_params(h).flows);
    for (const KindStream& s : streams)
        if (const auto* flows = std::any_cast<FlowBytes>(s.kind_counts))
            tcp.flow_bytes.insert(tcp.flow_bytes.end(), flows->bytes.begin(), flows->bytes.end());
    if (!tcp.flow_bytes.empty())
        tcp.flows = flow_figures(tcp.flow_bytes, r.elapsed_s, h.test == Workload::rr ? h.message_size : 0);
    int fd = streams.empty() ? -1 : tcp_fd(*streams.front().conn);
    if (fd >= 0) {
        if (role == Role::recv && !is_message_test(h.test)) tcp.rcv_lowat = receive_low_water(fd);
        tcp.settings = read_tcp_tuning(fd);  // crr, cc: the server's listener, whose settings its sockets inherit
        if (is_connection_test(h.test) && role == Role::send)
            tcp.connection_close = crr_close_method(tcp_params(h).crr_close);
    }
    r.kinds[tcp_block_type().key] = to_json(tcp);
}

bool is_listener(int fd) {
    int on = 0;
    socklen_t len = sizeof(on);
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on;
}

TransportOps tcp_loops_ops(const StreamSocketKind& kind) {
    TransportOps ops = kTcpOps;  // the socket loops, the accept with the token, the read-backs of settings
    ops.listen = kind.listen;
    ops.connect = kind.connect;
    ops.path_name = [](const HalfSpec& h, Role role) {
        const TransportInfo& row = transport_info(h.transport);
        return role == Role::send ? std::string(row.name) : std::string(row.kind) + " rx-copy";
    };
    ops.stream_reading = kind.stream_reading;
    ops.interval_block = nullptr;
    ops.kind_block = kind.kind_block;
    ops.loop_counts = nullptr;  // --flows is the tcp kind's own
    ops.rx_modes = {};
    return ops;
}

std::unique_ptr<KindListener> listen_stream_sockets(const HalfSpec& half, const std::string& bind_address,
                                                    const StreamSocket& socket, bool keep_listening) {
    return std::make_unique<TcpListener>(half, bind_address, socket, keep_listening);
}

// GPU memory over TCP is always staged (spec_problem refused --gpu-path direct).
void make_tcp_send(StreamLoop& loop, const HalfSpec& h, int fd) {
    require_runnable(h, Role::send);
    const size_t m = h.message_size, align = h.alignment;
    if (transport_info(h.transport).send_buffer == SendBuffer::file) {  // tcp-sendfile, and other kinds' rows
        loop.emplace<TcpSendfileSender>(fd, m);
        return;
    }
    const std::string_view row = transport_name(h.transport);  // the zero-copy senders are the tcp kind's rows
    if (row == "tcp-msgzc")
        loop.emplace<TcpMsgZerocopySender>(fd, m, align);
    else if (row == "tcp-uringzc")
        loop.emplace<TcpUringZcSender>(fd, m, align, tcp_params(h).uring_fixed);
    else  // tcp, and other kinds' rows on TCP sockets: send() from any memory
        emplace_stream_loop<TcpCopySender, TcpStagedSender>(loop, h.side.buffer, fd, m, align);
}

void make_tcp_recv(StreamLoop& loop, const HalfSpec& h, int fd) {
    require_runnable(h, Role::recv);
    const size_t m = h.message_size, align = h.alignment;
    set_receive_low_water(fd, rcv_lowat_of(h));
    switch (h.rx) {
        case RxMode::copy:
            emplace_stream_loop<TcpCopyReceiver, TcpStagedReceiver>(loop, h.side.buffer, fd, m, align);
            return;
        case RxMode::zerocopy:
            loop.emplace<TcpZerocopyReceiver>(fd, m);
            return;
        case RxMode::splice:
            loop.emplace<TcpSpliceReceiver>(fd, m);
            return;
        case RxMode::trunc:
            loop.emplace<TcpTruncReceiver>(fd, m);
            return;
        default:
            break;  // not one of kTcpRxModes (rx_mode_problem refused it)
    }
    throw std::logic_error("make_tcp_recv: unhandled mode");
}

void make_tcp_exchange(StreamLoop& loop, const HalfSpec& half, Role role, int fd, LatencyHistogram& rtt) {
    require_runnable(half, role);
    size_t size = half.message_size;
    size_t align = half.alignment;
    const BufferSpec& where = half.side.buffer;
    if (is_connection_test(half.test)) {
        // The client's fd is its stream's connection (where to connect); the server's, the listener,
        // whose accepted sockets inherit its settings (TcpListener set them): none per accept.
        CrrShape shape{half.test == Workload::crr, size, align, tcp_params(half).crr_close, {}};
        if (role == Role::send) {
            shape.tuning = client_tuning(half);
            loop.emplace<TcpCrrInitiator>(fd, shape, rtt);
        } else {
            loop.emplace<TcpCrrResponder>(fd, shape);
        }
        return;
    }
    if (half.test == Workload::rr) {
        if (where.on_gpu()) {  // TCP only stages GPU memory (spec_problem refused --gpu-path direct)
            if (role == Role::send)
                loop.emplace<TcpRrGpuInitiator>(fd, size, align, rtt, where);
            else
                loop.emplace<TcpRrGpuResponder>(fd, size, align, where);
        } else {
            if (role == Role::send)
                loop.emplace<TcpRrInitiator>(fd, size, align, rtt, where);
            else
                loop.emplace<TcpRrResponder>(fd, size, align, where);
        }
    } else {
        if (role == Role::send)
            loop.emplace<TcpMsgRateSender>(fd, size, align, half.batch);
        else
            loop.emplace<TcpMsgRateReceiver>(fd, size, align);
    }
}

extern const KindDescription kind_description_tcp;  // tcp_kind.cpp
extern const KindModule kind_module_tcp;
namespace {
const KindTable kTcpTables[] = {{"tcp", &kTcpOps}};
const KindOptionGroup* const kTcpOptionGroups[] = {&tcp_option_group(), &tcp_socket_option_group(),
                                                   &tcp_flows_option_group()};
constexpr const char* kTcpExamples =
    "  zcperf -T tcp,tcp-sendfile,tcp-msgzc,tcp-uringzc -m 4K..4M --cpu 0,1\n"
    "                                         copy vs zero-copy senders, each compared with the first (tcp);\n"
    "                                         the report says how many bytes the kernel copied anyway\n"
    "  zcperf -T tcp-msgzc --rx zerocopy      TCP_ZEROCOPY_RECEIVE on the receiver: mapped vs copied bytes\n"
    "  zcperf -C bbr --fq-rate 2.5G -H server congestion control and a pacing cap on both sides' sockets; the\n"
    "                                         report gives what each kernel ran and TCP_INFO per stream\n";
}  // namespace
const KindModule kind_module_tcp{.description = &kind_description_tcp,
                                 .tables = kTcpTables,
                                 .options = kTcpOptionGroups,
                                 .half_problem = tcp_options_problem,
                                 .help_examples = kTcpExamples};

}  // namespace zc
