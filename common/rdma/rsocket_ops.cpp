// The rsocket kind's operations table: rsockets (librdmacm's socket API over RDMA) connected and
// accepted with the token like TCP, and the rsend/rrecv, riowrite and rr loops on them. Only in a
// build with rdma-core (the rdma kind's module, rdma_params.cpp, lists the table only then).
#if ZCPERF_WITH_RDMA
#include <rdma/rsocket.h>

#include <any>
#include <stdexcept>

#include "rdma/rdma_block.hpp"
#include "rdma/rdma_params.hpp"
#include "kind/spec_rules.hpp"
#include "kind/transport_ops.hpp"
#include "rdma/rdma_connection.hpp"
#include "rdma/rsocket_paths.hpp"
#include "rdma/sockaddr_text.hpp"
#include "socket/stream_memory.hpp"

namespace zc {

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(10);

class Listener final : public KindListener {
public:
    Listener(const HalfSpec& half, Role role, const std::string& bind_address)
        : streams_(half.streams), rs_(bind_address, half, role) {}
    uint16_t port() const override { return rs_.port(); }
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped) override {
        return rs_.accept(streams_, token, deadline, stopped);
    }

private:
    int streams_;
    RsocketListener rs_;
};

std::unique_ptr<KindListener> listen(const HalfSpec& half, Role role, const std::string& bind_address) {
    return std::make_unique<Listener>(half, role, bind_address);
}

std::vector<DataConnection> connect(const HalfSpec& half, Role role, const PeerAddress& peer, uint64_t token) {
    std::vector<DataConnection> out;
    for (int i = 0; i < half.streams; ++i)
        out.emplace_back(make_kind_connection<RsocketFd>(
            connect_rsocket(peer.address, peer.port, token, half, role, kConnectTimeout)));
    return out;
}

std::string address_of(const DataConnection& c) {
    const auto* rs = kind_connection_if<RsocketFd>(c);
    if (!rs || !*rs) return {};
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    if (::rgetsockname(rs->get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0) return {};
    return sockaddr_text(ss);
}

// rsockets pick their device inside librdmacm; --rdma-dev is checked against the one the local
// address sits on, as for verbs.
int rsocket_of(DataConnection& conn, const HalfSpec& h) {
    const auto* c = kind_connection_if<RsocketFd>(conn);
    if (!c || !*c) throw std::logic_error("an rsocket path needs an rsocket");
    if (const std::string& want = rdma_device_wanted(h.side); !want.empty())
        require_wanted_device(want, device_info_for(address_of(conn)).device);
    return c->get();
}

// rsend/rrecv copy through rsockets' own registered buffers, so GPU memory is staged through bounce
// slots (the NIC never sees our memory); spec_problem refused what cannot be honoured.
void make_send(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    const int fd = rsocket_of(conn, h);
    if (rdma_op_of(transport_info(h.transport)) == RdmaOp::write)
        loop.emplace<RsocketIomapSender>(fd, h.message_size, h.alignment);
    else
        emplace_stream_loop<RsocketSender, RsocketStagedSender>(loop, h.side.buffer, fd, h.message_size, h.alignment);
}

void make_recv(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    const int fd = rsocket_of(conn, h);
    if (rdma_op_of(transport_info(h.transport)) == RdmaOp::write)
        loop.emplace<RsocketIomapReceiver>(fd, h.message_size, h.alignment, rdma_params(h).tx_depth);
    else
        emplace_stream_loop<RsocketReceiver, RsocketStagedReceiver>(loop, h.side.buffer, fd, h.message_size,
                                                                    h.alignment);
}

// rr only (the rows offer no msgrate over rsockets).
void make_exchange(StreamLoop& loop, const HalfSpec& h, Role role, DataConnection& conn, LatencyHistogram& rtt) {
    if (role == Role::send)
        loop.emplace<RsocketRrInitiator>(rsocket_of(conn, h), h.message_size, h.alignment, rtt);
    else
        loop.emplace<RsocketRrResponder>(rsocket_of(conn, h), h.message_size, h.alignment);
}

std::string name_of_path(const HalfSpec& h, Role) { return transport_name(h.transport); }

// What one stream's loop registered (the riomap'ed ring) and waited for (credits), read as it ended.
std::any loop_counts(const StreamLoop& loop) {
    RdmaInfo ran;
    if (const auto* r = loop.get_if<RsocketIomapReceiver>()) {
        ran.registration_ms = r->registration_ms();
        ran.registered_bytes = r->buffer().size();
    }
    if (const auto* s = loop.get_if<RsocketIomapSender>()) ran.credit_waits = s->credit_waits();
    return ran;
}

// The side's block: the local address's RDMA device (rsockets keep their cm_id to themselves; the streams
// share the route, so the first's address tells), and its loops' registration and credit waits.
void read_block(const HalfSpec& h, Role, std::span<const KindStream> streams, SideResult& r) {
    if (streams.empty()) return;
    RdmaInfo side = device_info_for(address_of(*streams.front().conn));
    for (const KindStream& s : streams)
        if (const auto* ran = std::any_cast<RdmaInfo>(s.kind_counts)) side.add(*ran);
    write_rdma_block(h, side, r);
}

uint64_t bytes_per_stream(const HalfSpec& h, Role role) {
    const uint64_t m = h.message_size;
    if (is_message_test(h.test)) return message_test_bytes(h, role);
    if (h.side.buffer.gpu_like()) return staged_socket_bytes(m);
    return role == Role::send ? m : rdma_ring_bytes(m);
}

}  // namespace

extern const TransportOps kRsocketOps;  // the rdma kind's module (rdma_params.cpp) lists it
const TransportOps kRsocketOps = {.listen = listen,
                                  .connect = connect,
                                  .make_send = make_send,
                                  .make_recv = make_recv,
                                  .make_exchange = make_exchange,
                                  .local_address = address_of,
                                  .path_name = name_of_path,
                                  .buffer_bytes = bytes_per_stream,
                                  .kind_block = read_block,
                                  .loop_counts = loop_counts,
                                  .kind_problem = rdma_params_problem};

}  // namespace zc
#endif
