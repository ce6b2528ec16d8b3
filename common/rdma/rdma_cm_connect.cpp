// Connecting a stream's queue pairs over rdma_cm: the client's connect_rdma_stream and the server's
// RdmaListener (the connection itself is rdma_connection.cpp).
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "protocol/messages.hpp"
#include "rdma/rdma_call.hpp"
#include "rdma/rdma_connection.hpp"
#include "rdma/sockaddr_text.hpp"

namespace zc {

using rdma_call::err;

namespace {

using Clock = std::chrono::steady_clock;

// Waits for the next event on `ch` until `deadline`; returns an empty CmEvent on timeout or stop.
CmEvent next_event(rdma_event_channel* ch, Clock::time_point deadline, const std::atomic<bool>* stopped = nullptr) {
    while (true) {
        if (stopped && stopped->load()) return {};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return {};
        pollfd p{ch->fd, POLLIN, 0};
        int rc = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 100)));
        if (rc < 0 && errno != EINTR) throw std::runtime_error(err("poll on the rdma_cm event channel"));
        if (rc <= 0) continue;
        rdma_cm_event* e = nullptr;
        if (rdma_get_cm_event(ch, &e) == 0) return CmEvent(e);
        if (errno != EAGAIN && errno != EINTR) throw std::runtime_error(err("rdma_get_cm_event"));
    }
}

// Waits for `want` on a client id; anything else is an error phrased for the user.
CmEvent expect_event(rdma_event_channel* ch, rdma_cm_event_type want, Clock::time_point deadline,
                     const std::string& peer) {
    CmEvent e = next_event(ch, deadline);
    if (!e)
        throw std::runtime_error("no answer from " + peer + " over rdma_cm in time (" + rdma_event_str(want) +
                                 " expected)");
    if (e->event == want) return e;
    std::string what = rdma_event_str(e->event);
    if (e->event == RDMA_CM_EVENT_REJECTED) {
        throw std::runtime_error(
            "the RDMA connection to " + peer + " was rejected (status " + std::to_string(e->status) +
            "): nothing listens there (is the port closed, or zcserver gone?) or it refused our token");
    }
    if (e->event == RDMA_CM_EVENT_ADDR_ERROR || e->event == RDMA_CM_EVENT_ROUTE_ERROR) {
        throw std::runtime_error("no RDMA route to " + peer + " (" + what + ", " + std::strerror(-e->status) +
                                 "): the address must be on an RDMA-capable interface (rdma_cm refuses loopback "
                                 "addresses; with Soft-RoCE, 'rdma link add rxe0 type rxe netdev IFACE')");
    }
    if (e->event == RDMA_CM_EVENT_UNREACHABLE || e->event == RDMA_CM_EVENT_CONNECT_ERROR) {
        throw std::runtime_error("cannot reach " + peer + " over RDMA (" + what + ")");
    }
    throw std::runtime_error("unexpected rdma_cm event " + what + " from " + peer + " (" + rdma_event_str(want) +
                             " expected)");
}

}  // namespace

// ---- client ----

RdmaConnectionPtr connect_rdma_stream(const std::string& server_address, uint16_t port, uint64_t token, int stream,
                                      const HalfSpec& half, Role role, std::chrono::milliseconds timeout,
                                      std::shared_ptr<DeviceGroup> group) {
    require_rdma_device();
    std::string peer = server_address + ":" + std::to_string(port);
    sockaddr_storage dst = numeric_sockaddr(server_address, port);
    auto conn = std::make_unique<RdmaConnection>(half, role, std::move(group));
    auto deadline = Clock::now() + timeout;
    for (uint32_t q = 0; q < rdma_params(half).qps; ++q) {
        rdma_cm_id* raw = nullptr;
        if (rdma_create_id(conn->channel(), &raw, nullptr, RDMA_PS_TCP) != 0)
            throw std::runtime_error(err("rdma_create_id"));
        CmId id(raw);
        if (rdma_resolve_addr(id.get(), nullptr, reinterpret_cast<sockaddr*>(&dst), 2000) != 0) {
            throw std::runtime_error(err("rdma_resolve_addr " + server_address));
        }
        expect_event(conn->channel(), RDMA_CM_EVENT_ADDR_RESOLVED, deadline, peer);
        if (rdma_resolve_route(id.get(), 2000) != 0)
            throw std::runtime_error(err("rdma_resolve_route " + server_address));
        expect_event(conn->channel(), RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, peer);
        if (q == 0) conn->open_device(id.get());
        rdma_cm_id* idp = id.get();
        conn->add_qp(std::move(id));
        PeerBuffer mine = conn->local_for(q);
        rdma_wire::ConnectRequest req{rdma_wire::kMagic,
                                      static_cast<uint32_t>(stream),
                                      token,
                                      q,
                                      rdma_params(half).qps,
                                      mine.addr,
                                      mine.rkey,
                                      mine.slots,
                                      mine.length};
        rdma_conn_param cp{};
        cp.private_data = &req;
        cp.private_data_len = sizeof(req);
        cp.responder_resources = 16;  // outstanding RDMA READs the peer may direct at us (rdma-read)
        cp.initiator_depth = 16;
        cp.retry_count = 7;
        cp.rnr_retry_count = 7;  // flow control avoids RNR; never fail on one
        ibv_device_attr da{};
        if (ibv_query_device(idp->verbs, &da) == 0) {
            cp.responder_resources = static_cast<uint8_t>(std::min(16, da.max_qp_rd_atom));
            cp.initiator_depth = static_cast<uint8_t>(std::min(16, da.max_qp_init_rd_atom));
        }
        if (conn->owns_qps()) cp.qp_num = conn->qp(q)->qp_num;
        if (rdma_connect(idp, &cp) != 0) throw std::runtime_error(err("rdma_connect to " + peer));
        // With a QP of our own, rdma_cm stops at the reply: we move the QP on, then confirm.
        CmEvent e =
            expect_event(conn->channel(), conn->owns_qps() ? RDMA_CM_EVENT_CONNECT_RESPONSE : RDMA_CM_EVENT_ESTABLISHED,
                         deadline, peer);
        if (!e->param.conn.private_data || e->param.conn.private_data_len < sizeof(rdma_wire::AcceptReply)) {
            throw std::runtime_error(peer +
                                     " accepted the RDMA connection without describing its buffer (not a zcserver?)");
        }
        rdma_wire::AcceptReply rep;
        std::memcpy(&rep, e->param.conn.private_data, sizeof(rep));
        if (rep.magic != rdma_wire::kMagic)
            throw std::runtime_error(peer + " answered the RDMA connection with foreign data");
        conn->set_peer(q, PeerBuffer{rep.addr, rep.rkey, rep.length, rep.slots});
        if (conn->owns_qps()) {
            conn->ready_qp(q);
            if (rdma_establish(idp) != 0) throw std::runtime_error(err("rdma_establish with " + peer));
        }
    }
    conn->finish_setup();
    return conn;
}

// ---- server ----

RdmaListener::RdmaListener(const std::string& bind_address, int backlog) : address_(bind_address) {
    require_rdma_device();
    channel_.reset(rdma_create_event_channel());
    if (!channel_) throw std::runtime_error(err("rdma_create_event_channel"));
    rdma_cm_id* raw = nullptr;
    if (rdma_create_id(channel_.get(), &raw, nullptr, RDMA_PS_TCP) != 0)
        throw std::runtime_error(err("rdma_create_id"));
    id_.reset(raw);
    sockaddr_storage ss = numeric_sockaddr(bind_address, 0);
    if (rdma_bind_addr(id_.get(), reinterpret_cast<sockaddr*>(&ss)) != 0) {
        throw std::runtime_error(err("rdma_bind_addr " + bind_address) +
                                 ": this address is on no RDMA device (rdma_cm refuses loopback addresses: connect the "
                                 "client to an address on the RDMA interface, e.g. zcserver --bind that address)");
    }
    if (!id_->verbs) {
        throw std::runtime_error("the data address " + bind_address +
                                 " is not on an RDMA device: the client must reach zcserver through an address on the "
                                 "RDMA interface (rdma_cm refuses loopback addresses)");
    }
    if (rdma_listen(id_.get(), backlog) != 0) throw std::runtime_error(err("rdma_listen"));
    port_ = ntohs(rdma_get_src_port(id_.get()));
}

std::vector<DataConnection> RdmaListener::accept(const HalfSpec& half, Role role, uint64_t token,
                                                 Clock::time_point deadline, const std::atomic<bool>& stopped) {
    const uint32_t qps = rdma_params(half).qps;
    std::vector<RdmaConnectionPtr> conns(half.streams);
    std::vector<std::vector<bool>> seen(half.streams, std::vector<bool>(qps, false));
    // --qps-per-context K: one device context (and PD) per K streams, opened by its first stream.
    const uint32_t per_ctx = rdma_params(half).qps_per_context;
    std::vector<std::shared_ptr<DeviceGroup>> groups;
    for (uint32_t g = 0; per_ctx && g < (uint32_t(half.streams) + per_ctx - 1) / per_ctx; ++g) {
        groups.push_back(std::make_shared<DeviceGroup>());
    }
    size_t established = 0, wanted = size_t(half.streams) * qps;
    while (established < wanted) {
        CmEvent e = next_event(channel_.get(), deadline, &stopped);
        if (stopped.load()) throw std::runtime_error(kStoppedBeforeStart);
        if (!e) {
            throw std::runtime_error("only " + std::to_string(established) + " of " + std::to_string(wanted) +
                                     " RDMA queue pairs connected within the set-up window");
        }
        if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
            rdma_cm_id* id = e->id;
            rdma_wire::ConnectRequest req{};
            bool ok = e->param.conn.private_data && e->param.conn.private_data_len >= sizeof(req);
            if (ok) std::memcpy(&req, e->param.conn.private_data, sizeof(req));
            ok = ok && req.magic == rdma_wire::kMagic && req.token == token && req.stream < uint32_t(half.streams) &&
                 req.qp < qps && req.qps == qps && !seen[req.stream][req.qp];
            if (!ok) {  // a stray, a stale client, or a wrong token: refuse it and keep waiting
                rdma_reject(id, nullptr, 0);
                e.ack();
                rdma_destroy_id(id);  // allowed for an id from a CONNECT_REQUEST once rejected
                continue;
            }
            seen[req.stream][req.qp] = true;
            CmId owned(id);
            auto& conn = conns[req.stream];
            if (!conn) {
                conn = std::make_unique<RdmaConnection>(half, role, per_ctx ? groups[req.stream / per_ctx] : nullptr);
                conn->open_device(id);
            }
            conn->add_qp(std::move(owned));
            conn->set_peer(req.qp, PeerBuffer{req.addr, req.rkey, req.length, req.slots});
            conn->ready_qp(req.qp);
            PeerBuffer mine = conn->local_for(req.qp);
            rdma_wire::AcceptReply rep{rdma_wire::kMagic, mine.slots, mine.addr, mine.rkey, 0, mine.length};
            rdma_conn_param cp{};
            cp.private_data = &rep;
            cp.private_data_len = sizeof(rep);
            cp.responder_resources = e->param.conn.initiator_depth;
            cp.initiator_depth = e->param.conn.responder_resources;
            cp.retry_count = 7;
            cp.rnr_retry_count = 7;
            if (conn->owns_qps()) cp.qp_num = conn->qp(req.qp)->qp_num;
            if (rdma_accept(id, &cp) != 0) throw std::runtime_error(err("rdma_accept"));
        } else if (e->event == RDMA_CM_EVENT_ESTABLISHED) {
            ++established;
        } else if (e->event == RDMA_CM_EVENT_DISCONNECTED || e->event == RDMA_CM_EVENT_CONNECT_ERROR ||
                   e->event == RDMA_CM_EVENT_UNREACHABLE || e->event == RDMA_CM_EVENT_REJECTED) {
            throw std::runtime_error(std::string("an RDMA data connection failed during set-up: ") +
                                     rdma_event_str(e->event));
        }
    }
    // Each stream's ids move to its own channel, so its data loop sees its peer disconnect.
    std::vector<DataConnection> out;
    for (auto& c : conns) {
        c->migrate_to_own_channel();
        c->finish_setup();
        out.emplace_back(KindConnection(std::move(c)));
    }
    return out;
}

}  // namespace zc
