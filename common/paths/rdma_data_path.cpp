// Builds the RDMA data paths on their connections (data_path.hpp). Kept apart from the TCP
// factory so that a build without rdma-core compiles none of it.
#include <stdexcept>

#include "paths/data_path.hpp"
#include "paths/data_setup.hpp"
#include "paths/exchange_path.hpp"
#if ZCPERF_WITH_RDMA
#include "rdma/rdma_connection.hpp"
#endif

namespace zc {

#if ZCPERF_WITH_RDMA

namespace {
RdmaConnection& verbs_of(DataConnection& conn) {
    auto* c = std::get_if<RdmaConnectionPtr>(&conn);
    if (!c || !*c) throw std::logic_error("a verbs path needs an RDMA connection");
    return **c;
}
// rsockets pick their device inside librdmacm; --rdma-dev is checked against the one the local
// address sits on, as for verbs.
int rsocket_of(DataConnection& conn, const ServerSpec& h) {
    auto* c = std::get_if<RsocketFd>(&conn);
    if (!c || !*c) throw std::logic_error("an rsocket path needs an rsocket");
    if (!h.side.rdma_dev.empty())
        require_wanted_device(h.side.rdma_dev, device_info_for(local_address_of(conn)).device);
    return c->get();
}

}  // namespace

void make_rdma_send_path(SendPath& path, const ServerSpec& h, DataConnection& conn) {
    switch (h.transport) {
        // rsend/rrecv copy through rsockets' own registered buffers, so GPU memory is staged through
        // bounce slots (the NIC never sees our memory); spec_problem refused what cannot be honoured.
        case Transport::rsocket:
            if (h.side.buffer.simulated())
                path.emplace<RsocketSimStagedSender>(rsocket_of(conn, h), h.message_size, h.alignment, 0);
            else if (h.side.buffer.on_gpu())
                path.emplace<RsocketStagedSender>(rsocket_of(conn, h), h.message_size, h.alignment,
                                                  h.side.buffer.device);
            else
                path.emplace<RsocketSender>(rsocket_of(conn, h), h.message_size, h.alignment);
            return;
        case Transport::rsocket_iomap:
            path.emplace<RsocketIomapSender>(rsocket_of(conn, h), h.message_size, h.alignment);
            return;
        case Transport::rdma_write:
        case Transport::rdma_send:
            path.emplace<RdmaSender>(verbs_of(conn));
            return;
        case Transport::rdma_read:
            path.emplace<RdmaReadSource>(verbs_of(conn));
            return;
        default:
            throw std::logic_error("make_rdma_send_path: not an RDMA transport");
    }
}

void make_rdma_recv_path(RecvPath& path, const ServerSpec& h, DataConnection& conn) {
    switch (h.transport) {
        case Transport::rsocket:
            if (h.side.buffer.simulated())
                path.emplace<RsocketSimStagedReceiver>(rsocket_of(conn, h), h.message_size, h.alignment, 0);
            else if (h.side.buffer.on_gpu())
                path.emplace<RsocketStagedReceiver>(rsocket_of(conn, h), h.message_size, h.alignment,
                                                    h.side.buffer.device);
            else
                path.emplace<RsocketReceiver>(rsocket_of(conn, h), h.message_size, h.alignment);
            return;
        case Transport::rsocket_iomap:
            path.emplace<RsocketIomapReceiver>(rsocket_of(conn, h), h.message_size, h.alignment, h.rdma.tx_depth);
            return;
        case Transport::rdma_write:
        case Transport::rdma_send:
            path.emplace<RdmaReceiver>(verbs_of(conn));
            return;
        case Transport::rdma_read:
            path.emplace<RdmaReadSink>(verbs_of(conn));
            return;
        default:
            throw std::logic_error("make_rdma_recv_path: not an RDMA transport");
    }
}

void make_rdma_exchange_path(ExchangePath& path, const ServerSpec& h, Role role, DataConnection& conn,
                             LatencyHistogram& rtt) {
    const bool initiator = role == Role::send;
    switch (h.transport) {
        case Transport::rsocket:
            if (h.test != TestKind::rr) break;
            if (initiator)
                path.emplace<RsocketRrInitiator>(rsocket_of(conn, h), h.message_size, h.alignment, rtt);
            else
                path.emplace<RsocketRrResponder>(rsocket_of(conn, h), h.message_size, h.alignment);
            return;
        case Transport::rdma_send:
        case Transport::rdma_write:
            if (h.test == TestKind::rr)
                path.emplace<RdmaRr>(verbs_of(conn), initiator, initiator ? &rtt : nullptr);
            else if (initiator)
                path.emplace<RdmaMsgRateSender>(verbs_of(conn));
            else
                path.emplace<RdmaMsgRateReceiver>(verbs_of(conn));
            return;
        default:
            break;
    }
    throw std::logic_error("make_rdma_exchange_path: " + std::string(test_name(h.test)) + " over " +
                           transport_name(h.transport) + " was not refused by spec_problem");
}

RdmaInfo rdma_info_of(const DataConnection& conn, const SendPath& send, const RecvPath& recv) {
    if (auto* c = std::get_if<RdmaConnectionPtr>(&conn); c && *c) return (*c)->info();
    // Plain TCP uses no RDMA device, even when one sits on its netdev (rxe on a NIC, RoCE NICs).
    if (!std::holds_alternative<RsocketFd>(conn)) return {};
    // rsockets: what the local address's RDMA device is (rsockets keep their cm_id to themselves).
    RdmaInfo info = device_info_for(local_address_of(conn));
    if (auto* r = std::get_if<RsocketIomapReceiver>(&recv)) {
        info.registration_ms = r->registration_ms();
        info.registered_bytes = r->buffer().size();
    }
    if (auto* s = std::get_if<RsocketIomapSender>(&send)) info.credit_waits = s->credit_waits();
    return info;
}

#else

void make_rdma_send_path(SendPath&, const ServerSpec&, DataConnection&) {
    throw std::runtime_error("this build has no RDMA transports (built without rdma-core)");
}
void make_rdma_recv_path(RecvPath&, const ServerSpec&, DataConnection&) {
    throw std::runtime_error("this build has no RDMA transports (built without rdma-core)");
}
RdmaInfo rdma_info_of(const DataConnection&, const SendPath&, const RecvPath&) { return {}; }
void make_rdma_exchange_path(ExchangePath&, const ServerSpec&, Role, DataConnection&, LatencyHistogram&) {
    throw std::runtime_error("this build has no RDMA transports (built without rdma-core)");
}

#endif

}  // namespace zc
