// The verbs kind's operations table: queue pairs connected with rdma_cm (one RdmaConnection per
// stream, its QPs, memory region and ring) and the RDMA WRITE / SEND / READ loops on them. Only in a
// build with rdma-core (the rdma kind's module, rdma_params.cpp, lists the table only then).
#if ZCPERF_WITH_RDMA
#include <algorithm>
#include <stdexcept>

#include "rdma/rdma_block.hpp"
#include "rdma/rdma_params.hpp"
#include "kind/spec_rules.hpp"
#include "kind/transport_ops.hpp"
#include "rdma/rdma_connection.hpp"
#include "rdma/verbs_paths.hpp"
#include "rdma/wire.hpp"

namespace zc {

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(10);

class Listener final : public KindListener {
public:
    Listener(const HalfSpec& half, Role role, const std::string& bind_address)
        : half_(half), role_(role), cm_(bind_address, half.streams * static_cast<int>(rdma_params(half).qps) + 8) {}
    uint16_t port() const override { return cm_.port(); }
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped) override {
        return cm_.accept(half_, role_, token, deadline, stopped);
    }

private:
    HalfSpec half_;
    Role role_;
    RdmaListener cm_;
};

std::unique_ptr<KindListener> listen(const HalfSpec& half, Role role, const std::string& bind_address) {
    return std::make_unique<Listener>(half, role, bind_address);
}

std::vector<DataConnection> connect(const HalfSpec& half, Role role, const PeerAddress& peer, uint64_t token) {
    std::vector<DataConnection> out;
    std::shared_ptr<DeviceGroup> group;  // --qps-per-context K: a new one every K streams
    const uint32_t per_ctx = rdma_params(half).qps_per_context;
    for (int i = 0; i < half.streams; ++i) {
        if (per_ctx && i % per_ctx == 0) group = std::make_shared<DeviceGroup>();
        out.emplace_back(
            KindConnection(connect_rdma_stream(peer.address, peer.port, token, i, half, role, kConnectTimeout, group)));
    }
    return out;
}

RdmaConnection& verbs_of(DataConnection& conn) {
    auto* c = kind_connection_if<RdmaConnection>(conn);
    if (!c) throw std::logic_error("a verbs path needs an RDMA connection");
    return *c;
}

// rdma-read's sender is passive (its buffer is read); its receiver pulls.
void make_send(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    if (rdma_op_of(transport_info(h.transport)) == RdmaOp::read)
        loop.emplace<RdmaReadSource>(verbs_of(conn));
    else
        loop.emplace<RdmaSender>(verbs_of(conn));
}

void make_recv(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    if (rdma_op_of(transport_info(h.transport)) == RdmaOp::read)
        loop.emplace<RdmaReadSink>(verbs_of(conn));
    else
        loop.emplace<RdmaReceiver>(verbs_of(conn));
}

void make_exchange(StreamLoop& loop, const HalfSpec& h, Role role, DataConnection& conn, LatencyHistogram& rtt) {
    const bool initiator = role == Role::send;
    if (h.test == Workload::rr)
        loop.emplace<RdmaRr>(verbs_of(conn), initiator, initiator ? &rtt : nullptr);
    else if (initiator)
        loop.emplace<RdmaMsgRateSender>(verbs_of(conn));
    else
        loop.emplace<RdmaMsgRateReceiver>(verbs_of(conn));
}

std::string address_of(const DataConnection& c) {
    const auto* r = kind_connection_if<RdmaConnection>(c);
    return r ? r->local_address() : std::string();
}

// The side's block: each stream's connection's facts (device, QPs, CQ mode, registration, posts), summed;
// the loops write theirs into the connection.
void read_block(const HalfSpec& h, Role, std::span<const KindStream> streams, SideResult& r) {
    if (streams.empty()) return;
    RdmaInfo side;
    for (const KindStream& s : streams)
        if (const auto* c = kind_connection_if<RdmaConnection>(*s.conn)) side.add(c->info());
    write_rdma_block(h, side, r);
}

uint64_t bytes_per_stream(const HalfSpec& h, Role role) {
    const uint64_t m = h.message_size;
    const bool sending = role == Role::send;
    if (h.test == Workload::msgrate && !sending) {
        // The receiver's ring of at least rdma_wire::kMsgrateWindow slots per QP.
        const RdmaOptions& o = rdma_params(h);
        uint32_t window = std::max(o.tx_depth, rdma_wire::kMsgrateWindow);
        return uint64_t(o.qps) * rdma_wire::slots_per_qp(window, o.qps, m) * m;
    }
    if (is_message_test(h.test)) return message_test_bytes(h, role);
    // GPU memory staged (the worst case; direct needs less): the registered host ring of bounce slots,
    // on both sides, plus the GPU memory (the sender's message, the receiver's ring).
    if (h.side.buffer.gpu_like()) return rdma_ring_bytes(m) + (sending ? m : rdma_ring_bytes(m));
    return sending ? m : rdma_ring_bytes(m);
}

// msgrate: a post chains --postlist messages.
uint32_t postlist(const TestParams& p) { return rdma_params(p).postlist; }

}  // namespace

extern const TransportOps kVerbsOps;  // the rdma kind's module (rdma_params.cpp) lists it
const TransportOps kVerbsOps = {.listen = listen,
                                .connect = connect,
                                .make_send = make_send,
                                .make_recv = make_recv,
                                .make_exchange = make_exchange,
                                .local_address = address_of,
                                .buffer_bytes = bytes_per_stream,
                                .kind_block = read_block,
                                .kind_problem = rdma_params_problem,
                                .messages_per_call = postlist};

}  // namespace zc
#endif
