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
#include "rdma/rdma_call.hpp"
#include "rdma/sockaddr_text.hpp"

namespace zc {

using rdma_call::err;
using rdma_call::mtu_bytes;

namespace {

uint32_t qp_slots(const HalfSpec& h) {
    if (h.test == Workload::rr) return 1;
    // msgrate: a receive window of at least kMsgrateWindow, so a receiver a little behind does not
    // stop the sender for credits (the sends in flight stay --tx-depth).
    const RdmaOptions& o = rdma_params(h);
    uint32_t window = h.test == Workload::msgrate ? std::max(o.tx_depth, rdma_wire::kMsgrateWindow) : o.tx_depth;
    return rdma_wire::slots_per_qp(window, o.qps, h.message_size);
}

// A receiver (and an rdma-read sink) holds a ring of slots per QP; a sender one pattern message.
bool needs_ring(Role role) { return role == Role::recv; }

}  // namespace

namespace {
RdmaOptions with_cq_mode(RdmaOptions o, CqMode m) {
    o.cq_mode = m;
    return o;
}
// One-sided transfers: this side's memory is written or read by the peer's NIC; it only waits.
// rr has no passive side: both write, and both must see arrivals the same way (RdmaRr picks plain
// writes and last-byte polling or writes with immediate from the CQ mode), so auto polls on both;
// the responder (Role::recv) on event alone waited for immediates the polling initiator never sent.
bool is_passive(const HalfSpec& half, Role role) {
    if (half.test == Workload::rr) return false;
    const RdmaOp op = rdma_op_of(transport_info(half.transport));
    return (op == RdmaOp::write && role == Role::recv) || (op == RdmaOp::read && role == Role::send);
}
}  // namespace

RdmaConnection::RdmaConnection(const HalfSpec& half, Role role, std::shared_ptr<DeviceGroup> group)
    : op_(rdma_op_of(transport_info(half.transport))),
      role_(role),
      opt_(with_cq_mode(rdma_params(half), effective_cq_mode(rdma_params(half).cq_mode, is_passive(half, role)))),
      cq_auto_stream_(rdma_params(half).cq_mode == CqMode::auto_ &&
                      (half.test == Workload::stream || half.test == Workload::maerts)),
      message_size_(half.message_size),
      slots_(qp_slots(half)),
      want_device_(rdma_device_wanted(half.side)),
      where_(half.side.buffer),
      gpu_path_(half.side.gpu_path),
      align_(half.alignment < 4096 ? 4096 : half.alignment),
      data_bytes_(needs_ring(role) && half.test != Workload::rr
                      ? uint64_t(rdma_params(half).qps) * slots_ * half.message_size
                      : half.message_size),
      rr_(half.test == Workload::rr),
      group_(std::move(group)) {
    channel_.reset(rdma_create_event_channel());
    if (!channel_) throw std::runtime_error(err("rdma_create_event_channel"));
    peers_.resize(rdma_params(half).qps);
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
    req.passive_source = op_ == RdmaOp::read && !needs_ring(role_);
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

}  // namespace zc
