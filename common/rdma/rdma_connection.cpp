#include "rdma/rdma_connection.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "protocol/messages.hpp"
#include "rdma/provider_name.hpp"
#include "rdma/sockaddr_text.hpp"

namespace zc {

namespace {

using Clock = std::chrono::steady_clock;

std::string err(const std::string& what) { return what + ": " + std::strerror(errno); }

const char* link_layer_name(uint8_t ll) {
    switch (ll) {
        case IBV_LINK_LAYER_INFINIBAND:
            return "InfiniBand";
        case IBV_LINK_LAYER_ETHERNET:
            return "Ethernet (RoCE)";
        default:
            return "unspecified";
    }
}

int mtu_bytes(ibv_mtu m) { return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 256 << (m - IBV_MTU_256) : 0; }

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

uint32_t qp_slots(const ServerSpec& h) {
    if (h.test == TestKind::rr) return 1;
    // msgrate: a receive window of at least kMsgrateWindow, so a receiver a little behind does not
    // stop the sender for credits (the sends in flight stay --tx-depth).
    uint32_t window =
        h.test == TestKind::msgrate ? std::max(h.rdma.tx_depth, rdma_wire::kMsgrateWindow) : h.rdma.tx_depth;
    return rdma_wire::slots_per_qp(window, h.rdma.qps, h.message_size);
}

// A receiver (and an rdma-read sink) holds a ring of slots per QP; a sender one pattern message.
bool needs_ring(Role role) { return role == Role::recv; }

}  // namespace

void fill_device_info(rdma_cm_id* id, RdmaInfo& info) {
    ibv_context* ctx = id->verbs;
    info.device = ibv_get_device_name(ctx->device);
    info.provider = provider_name(ctx->device);
    info.doorbell_env = doorbell_env_now();
    info.port = id->port_num;
    ibv_port_attr pa{};
    if (ibv_query_port(ctx, id->port_num, &pa) != 0) return;
    info.link_layer = link_layer_name(pa.link_layer);
    info.mtu = mtu_bytes(pa.active_mtu);
    // The GID index rdma_cm's source GID sits at (RoCE v2 preferred when v1 and v2 share it).
    ibv_gid sgid{};
    std::memcpy(&sgid, &id->route.addr.addr.ibaddr.sgid, sizeof(sgid));
    for (int i = 0; i < pa.gid_tbl_len; ++i) {
        ibv_gid g{};
        if (ibv_query_gid(ctx, id->port_num, i, &g) != 0) continue;
        if (std::memcmp(&g, &sgid, sizeof(g)) != 0) continue;
        ibv_gid_entry entry{};
        bool v2 = ibv_query_gid_ex(ctx, id->port_num, i, &entry, 0) == 0 && entry.gid_type == IBV_GID_TYPE_ROCE_V2;
        if (info.gid_index < 0 || v2) info.gid_index = i;
        if (v2) break;
    }
}

RdmaInfo device_info_for(const std::string& local_address) {
    RdmaInfo info;
    try {
        CmEventChannel ch(rdma_create_event_channel());
        rdma_cm_id* raw = nullptr;
        if (!ch || rdma_create_id(ch.get(), &raw, nullptr, RDMA_PS_TCP) != 0) return info;
        CmId id(raw);
        sockaddr_storage ss = numeric_sockaddr(local_address, 0);
        if (rdma_bind_addr(id.get(), reinterpret_cast<sockaddr*>(&ss)) == 0 && id->verbs)
            fill_device_info(id.get(), info);
    } catch (const std::exception&) {}
    return info;
}

namespace {
RdmaOptions with_cq_mode(RdmaOptions o, CqMode m) {
    o.cq_mode = m;
    return o;
}
// One-sided transfers: this side's memory is written or read by the peer's NIC; it only waits.
// rr has no passive side: both write, and both must see arrivals the same way (RdmaRr picks plain
// writes and last-byte polling or writes with immediate from the CQ mode), so auto polls on both;
// the responder (Role::recv) on event alone waited for immediates the polling initiator never sent.
bool is_passive(const ServerSpec& half, Role role) {
    if (half.test == TestKind::rr) return false;
    const Transport t = half.transport;
    return (t == Transport::rdma_write && role == Role::recv) || (t == Transport::rdma_read && role == Role::send);
}
}  // namespace

void require_wanted_device(const std::string& wanted, const std::string& used) {
    if (wanted.empty() || wanted == used) return;
    throw std::runtime_error("--rdma-dev " + wanted + " was asked for, but the route to the peer goes through " +
                             (used.empty() ? std::string("no RDMA device") : used) + ": give the peer an address on " +
                             wanted + "'s interface");
}

void require_rdma_device() {
    int n = 0;
    ibv_device** list = ibv_get_device_list(&n);
    if (list) ibv_free_device_list(list);
    if (n <= 0) {
        throw std::runtime_error(
            "no RDMA device on this host (ibv_get_device_list found none, /sys/class/infiniband is empty): "
            "RDMA transports need an RDMA NIC with its driver loaded, or Soft-RoCE: 'modprobe rdma_rxe && rdma link "
            "add rxe0 type rxe netdev IFACE'");
    }
}

RdmaConnection::RdmaConnection(const ServerSpec& half, Role role, std::shared_ptr<DeviceGroup> group)
    : transport_(half.transport),
      role_(role),
      opt_(with_cq_mode(half.rdma, effective_cq_mode(half.rdma.cq_mode, is_passive(half, role)))),
      cq_auto_stream_(half.rdma.cq_mode == CqMode::auto_ &&
                      (half.test == TestKind::stream || half.test == TestKind::maerts)),
      message_size_(half.message_size),
      slots_(qp_slots(half)),
      want_device_(half.side.rdma_dev),
      where_(half.side.buffer),
      gpu_path_(half.side.gpu_path),
      align_(half.alignment < 4096 ? 4096 : half.alignment),
      data_bytes_(needs_ring(role) && half.test != TestKind::rr ? uint64_t(half.rdma.qps) * slots_ * half.message_size
                                                                : half.message_size),
      rr_(half.test == TestKind::rr),
      group_(std::move(group)) {
    channel_.reset(rdma_create_event_channel());
    if (!channel_) throw std::runtime_error(err("rdma_create_event_channel"));
    peers_.resize(half.rdma.qps);
}

RdmaConnection::~RdmaConnection() {
    for (auto& id : qps_)
        if (id) rdma_disconnect(id.get());  // tell the peer now rather than at its retry timeout
}

void RdmaConnection::open_device(rdma_cm_id* first) {
    ibv_context* ctx = first->verbs;
    if (!ctx) throw std::runtime_error("rdma_cm found no RDMA device for this connection");
    info_.device = ibv_get_device_name(ctx->device);
    require_wanted_device(want_device_, info_.device);
    fill_device_info(first, info_);
    if (cq_auto_stream_)  // auto made a passive side's mode event, and only its: the device may add the stream's
        opt_.cq_mode =
            effective_cq_mode(CqMode::auto_, opt_.cq_mode == CqMode::event, software_provider(info_.provider));
    info_.cq_mode = cq_mode_name(opt_.cq_mode);
    ibv_port_attr pa{};
    uint64_t max_msg = 1ull << 30;
    if (ibv_query_port(ctx, first->port_num, &pa) == 0 && pa.max_msg_sz > 0) max_msg = pa.max_msg_sz;
    piece_ = std::min<uint64_t>(message_size_, max_msg);
    pieces_ = static_cast<uint32_t>((message_size_ + piece_ - 1) / piece_);
    if (group_) {
        // --qps-per-context: the first stream of a group opens the device for the group; the CQ,
        // completion channel and QPs of each of its streams are made on that context.
        if (!group_->context) {
            group_->context.reset(ibv_open_device(ctx->device));
            if (!group_->context) throw std::runtime_error(err("ibv_open_device " + info_.device));
            group_->pd.reset(ibv_alloc_pd(group_->context.get()));
            if (!group_->pd) throw std::runtime_error(err("ibv_alloc_pd on " + info_.device));
            info_.contexts_opened = 1;
        }
        ctx = group_->context.get();
    } else {
        pd_.reset(ibv_alloc_pd(ctx));
        if (!pd_) throw std::runtime_error(err("ibv_alloc_pd on " + info_.device));
    }
    if (opt_.thread_domains) open_thread_domain(ctx);
    if (opt_.cq_mode == CqMode::event) {
        comp_.reset(ibv_create_comp_channel(ctx));
        if (!comp_) throw std::runtime_error(err("ibv_create_comp_channel"));
    }
    // Sender: tx-depth data WRs (+ end message); receiver: credit messages, one per announcement.
    send_depth_ = std::max(opt_.tx_depth, slots_) + 4;
    recv_depth_ = (rr_ ? pieces_ : slots_) + 4;
    ibv_device_attr da{};
    if (ibv_query_device(ctx, &da) == 0) {
        send_depth_ = std::min<uint32_t>(send_depth_, static_cast<uint32_t>(da.max_qp_wr));
        recv_depth_ = std::min<uint32_t>(recv_depth_, static_cast<uint32_t>(da.max_qp_wr));
        if (recv_depth_ < (rr_ ? pieces_ : slots_) + 2) {
            throw std::runtime_error(info_.device + " allows " + std::to_string(da.max_qp_wr) +
                                     " work requests per queue: lower --tx-depth");
        }
    }
    int cqe = static_cast<int>(opt_.qps * (send_depth_ + recv_depth_));
    if (parent_) {
        // The CQ in the thread's parent domain and single-threaded (only this stream's thread polls
        // it, the thread domain's contract), so that the provider may drop its lock too (mlx5).
        ibv_cq_init_attr_ex ca{};
        ca.cqe = static_cast<uint32_t>(cqe);
        ca.channel = comp_.get();
        ca.wc_flags = IBV_WC_STANDARD_FLAGS;
        ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD | IBV_CQ_INIT_ATTR_MASK_FLAGS;
        ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
        ca.parent_domain = parent_.get();
        ibv_cq_ex* cq = ibv_create_cq_ex(ctx, &ca);
        if (!cq)
            throw std::runtime_error(err("--thread-domains: ibv_create_cq_ex in the parent domain on " + info_.device));
        cq_.reset(ibv_cq_ex_to_cq(cq));
    } else {
        cq_.reset(ibv_create_cq(ctx, cqe, nullptr, comp_.get(), 0));
    }
    if (!cq_) throw std::runtime_error(err("ibv_create_cq of " + std::to_string(cqe) + " entries"));
    // The data memory (host, GPU memory registered directly, or staged through host slots: rdma/
    // data_memory.hpp), registered once, before the interval; its cost is reported apart.
    DataMemoryRequest req;
    req.where = where_;
    req.asked = gpu_path_;
    req.data_bytes = data_bytes_;
    // A staged sender holds a ring of bounce slots, one per message in flight, like a receiver's.
    req.staged_data_bytes = uint64_t(opt_.qps) * slots_ * message_size_;
    req.ctrl_bytes = uint64_t(opt_.qps) * 128;
    req.alignment = align_;
    req.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    req.passive_source = transport_ == Transport::rdma_read && !needs_ring(role_);
    req.device = info_.device;
    mem_.emplace(pd(), req);
    info_.registration_ms = mem_->registration_ms();
    info_.registered_bytes = mem_->registered_bytes();
    if (where_.gpu_like()) {
        info_.gpu_path = data_memory_mode_name(mem_->mode());
        info_.gpu_path_note = mem_->note();
    }
    // The sender's (and rdma-read source's) message carries the pattern the receiver checks; a
    // staged sender's data path uploads it to its GPU memory instead. rr: both sides send from
    // (and land into) one message that starts with the pattern.
    if ((!needs_ring(role_) || rr_) && mem_->mode() != DataMemoryMode::staged) {
        std::vector<std::byte> pattern(message_size_);
        rdma_wire::fill_pattern(pattern.data(), message_size_);
        mem_->write_data(0, pattern.data(), pattern.size());
    }
}

// --thread-domains: this stream's thread gets a thread domain and a parent domain over its PD (the
// group's with --qps-per-context); its CQ and QPs are made in the parent domain, its memory stays
// registered on the PD. A provider without them (rxe, siw) refuses here, and so does the run.
void RdmaConnection::open_thread_domain(ibv_context* ctx) {
    auto refused = [&](const char* call) {
        std::string why = std::strerror(errno);
        return std::runtime_error("--thread-domains cannot be honoured: " + info_.device + "'s provider (" +
                                  info_.provider + ") refused " + call + ": " + why +
                                  "; run without --thread-domains (the threads' QPs then share the context's "
                                  "doorbell registers and locks), or give each thread a context of its own with "
                                  "--qps-per-context 1");
    };
    ibv_td_init_attr ta{};
    errno = 0;
    td_.reset(ibv_alloc_td(ctx, &ta));
    if (!td_) throw refused("ibv_alloc_td");
    ibv_parent_domain_init_attr pa{};
    pa.pd = pd();
    pa.td = td_.get();
    errno = 0;
    parent_.reset(ibv_alloc_parent_domain(ctx, &pa));
    if (!parent_) throw refused("ibv_alloc_parent_domain");
    info_.thread_domains = 1;
}

void RdmaConnection::add_qp(CmId id) {
    if (id->verbs->device != pd()->context->device) {
        throw std::runtime_error("the queue pairs of one stream reached different RDMA devices");
    }
    ibv_qp_init_attr a{};
    a.send_cq = cq_.get();
    a.recv_cq = cq_.get();
    a.qp_type = IBV_QPT_RC;
    a.sq_sig_all = 0;  // we signal every Nth work request ourselves
    a.cap.max_send_wr = send_depth_;
    a.cap.max_recv_wr = recv_depth_;
    a.cap.max_send_sge = 1;
    a.cap.max_recv_sge = 1;
    // Inline room for the end message at least, so it needs no DMA; more when --inline asks.
    a.cap.max_inline_data = std::max<uint32_t>(opt_.inline_size, sizeof(rdma_wire::EndMessage));
    auto create = [&] {
        if (!group_) return rdma_create_qp(id.get(), qp_pd(), &a) == 0;
        QueuePair qp(ibv_create_qp(qp_pd(), &a));
        if (!qp) return false;
        ibv_qp_attr attr{};
        int mask = 0;
        attr.qp_state = IBV_QPS_INIT;
        if (rdma_init_qp_attr(id.get(), &attr, &mask) != 0 || ibv_modify_qp(qp.get(), &attr, mask) != 0) {
            throw std::runtime_error(err("moving our own QP to INIT (rdma_init_qp_attr, ibv_modify_qp)"));
        }
        own_qps_.push_back(std::move(qp));
        return true;
    };
    if (!create()) {
        a.cap.max_inline_data = opt_.inline_size;
        if (opt_.inline_size > 0 || !create()) {
            throw std::runtime_error(err("rdma_create_qp (send " + std::to_string(send_depth_) + ", receive " +
                                         std::to_string(recv_depth_) + " entries, inline " +
                                         std::to_string(opt_.inline_size) + ")"));
        }
    }
    max_inline_ = a.cap.max_inline_data;
    info_.max_inline = max_inline_;
    qps_.push_back(std::move(id));
    info_.qps = static_cast<uint32_t>(qps_.size());
}

void RdmaConnection::ready_qp(size_t q) {
    if (own_qps_.empty()) return;
    // INIT again first: before the connection existed rdma_cm granted no remote access (the INIT
    // attributes from the CM now carry REMOTE_WRITE / READ), as librdmacm does for its own QPs.
    for (ibv_qp_state s : {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS}) {
        ibv_qp_attr attr{};
        int mask = 0;
        attr.qp_state = s;
        if (rdma_init_qp_attr(qps_.at(q).get(), &attr, &mask) != 0 ||
            ibv_modify_qp(own_qps_.at(q).get(), &attr, mask) != 0) {
            const char* name = s == IBV_QPS_INIT ? "INIT" : s == IBV_QPS_RTR ? "RTR" : "RTS";
            throw std::runtime_error(err(std::string("moving our own QP to ") + name +
                                         " (--qps-per-context; rdma_init_qp_attr, ibv_modify_qp)"));
        }
    }
}

PeerBuffer RdmaConnection::local_for(size_t qp) const {
    PeerBuffer p;
    p.rkey = mem_->data_rkey();
    p.slots = slots_;
    if (needs_ring(role_) && !rr_) {
        p.addr = reinterpret_cast<uint64_t>(slot(qp, 0));
        p.length = uint64_t(slots_) * message_size_;
    } else {
        p.addr = reinterpret_cast<uint64_t>(data());
        p.length = message_size_;
    }
    return p;
}

void RdmaConnection::finish_setup() {
    ibv_qp_attr a{};
    ibv_qp_init_attr ia{};
    if (!qps_.empty() && ibv_query_qp(qp(0), &a, IBV_QP_PATH_MTU, &ia) == 0 && mtu_bytes(a.path_mtu) > 0) {
        info_.mtu = mtu_bytes(a.path_mtu);
    }
    int fl = fcntl(channel_->fd, F_GETFL);
    fcntl(channel_->fd, F_SETFL, fl | O_NONBLOCK);  // the data loops only peek at it
}

void RdmaConnection::migrate_to_own_channel() {
    for (auto& id : qps_)
        if (rdma_migrate_id(id.get(), channel_.get()) != 0) throw std::runtime_error(err("rdma_migrate_id"));
}

bool RdmaConnection::peer_gone() const {
    rdma_cm_event* e = nullptr;
    while (!gone_ && rdma_get_cm_event(channel_.get(), &e) == 0) {
        auto t = e->event;
        rdma_ack_cm_event(e);
        if (t == RDMA_CM_EVENT_DISCONNECTED || t == RDMA_CM_EVENT_DEVICE_REMOVAL || t == RDMA_CM_EVENT_TIMEWAIT_EXIT)
            gone_ = true;
    }
    return gone_;
}

std::string RdmaConnection::local_address() const {
    return qps_.empty() ? std::string() : sockaddr_text(rdma_get_local_addr(qps_[0].get()));
}

// ---- client ----

RdmaConnectionPtr connect_rdma_stream(const std::string& server_address, uint16_t port, uint64_t token, int stream,
                                      const ServerSpec& half, Role role, std::chrono::milliseconds timeout,
                                      std::shared_ptr<DeviceGroup> group) {
    require_rdma_device();
    std::string peer = server_address + ":" + std::to_string(port);
    sockaddr_storage dst = numeric_sockaddr(server_address, port);
    RdmaConnectionPtr conn = make_rdma_connection(half, role, std::move(group));
    auto deadline = Clock::now() + timeout;
    for (uint32_t q = 0; q < half.rdma.qps; ++q) {
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
        rdma_wire::ConnectRequest req{
            rdma_wire::kMagic, static_cast<uint32_t>(stream), token, q, half.rdma.qps, mine.addr, mine.rkey, mine.slots,
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

std::vector<DataConnection> RdmaListener::accept(const ServerSpec& half, Role role, uint64_t token,
                                                 Clock::time_point deadline, const std::atomic<bool>& stopped) {
    const uint32_t qps = half.rdma.qps;
    std::vector<RdmaConnectionPtr> conns(half.streams);
    std::vector<std::vector<bool>> seen(half.streams, std::vector<bool>(qps, false));
    // --qps-per-context K: one device context (and PD) per K streams, opened by its first stream.
    const uint32_t per_ctx = half.rdma.qps_per_context;
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
                conn = make_rdma_connection(half, role, per_ctx ? groups[req.stream / per_ctx] : nullptr);
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
        out.emplace_back(std::move(c));
    }
    return out;
}

}  // namespace zc
