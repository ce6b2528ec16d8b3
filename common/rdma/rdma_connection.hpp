#pragma once
// One RDMA stream: its queue pairs (one rdma_cm id each, --qps of them), connected with rdma_cm to
// the port the server announced, and everything they share: PD, CQ (+ completion channel in event
// mode), the data buffer registered once before the measured interval, and what the peer told us
// of its buffer. The data paths (rdma_write.cpp, rdma_send.cpp, rdma_read.cpp) run on it.
#include <atomic>
#include <chrono>
#include <optional>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "memory/host_buffer.hpp"
#include "rdma/rdma_info.hpp"
#include "rdma/rdma_options.hpp"
#include "rdma/data_memory.hpp"
#include "protocol/run_spec.hpp"
#include "rdma/resources.hpp"
#include "rdma/wire.hpp"
#include "core/data_connection.hpp"

namespace zc {

// What the peer said about its side of one QP.
struct PeerBuffer {
    uint64_t addr = 0;
    uint32_t rkey = 0;
    uint64_t length = 0;
    uint32_t slots = 0;
};

class RdmaConnection {
public:
    // `group`: the device context and PD shared with other streams (--qps-per-context), or null for
    // rdma_cm's shared context and a PD of this stream's own.
    RdmaConnection(const HalfSpec& half, Role role, std::shared_ptr<DeviceGroup> group = nullptr);
    RdmaConnection(const RdmaConnection&) = delete;
    RdmaConnection& operator=(const RdmaConnection&) = delete;
    ~RdmaConnection();

    // Set-up, in this order (both sides): the device the first QP's route chose; then each QP.
    void open_device(rdma_cm_id* first);
    void add_qp(CmId id);  // creates its QP on our PD/CQ (INIT when we own it) and posts nothing yet
    // Our own QPs (--qps-per-context) are not rdma_cm's to move: RTR and RTS with the attributes
    // rdma_cm worked out for the id (rdma_init_qp_attr). Nothing to do for rdma_create_qp's QPs.
    void ready_qp(size_t qp);
    bool owns_qps() const { return group_ != nullptr; }
    void set_peer(size_t qp, const PeerBuffer& p) { peers_.at(qp) = p; }
    // What we tell the peer about our side of QP `qp`.
    PeerBuffer local_for(size_t qp) const;
    void migrate_to_own_channel();  // server: ids arrive on the listener's channel
    void finish_setup();            // reads the path MTU back, makes the cm channel non-blocking
    rdma_event_channel* channel() const { return channel_.get(); }

    // For the data paths.
    RdmaOp op() const { return op_; }  // the row's: SEND, WRITE or READ
    Role role() const { return role_; }
    const RdmaOptions& options() const { return opt_; }
    uint64_t message_size() const { return message_size_; }
    uint32_t slots() const { return slots_; }  // receive slots per QP (the window)
    size_t qp_count() const { return qps_.size(); }
    ibv_qp* qp(size_t i) const { return own_qps_.empty() ? qps_[i].get()->qp : own_qps_[i].get(); }
    const PeerBuffer& peer(size_t i) const { return peers_[i]; }
    ibv_cq* cq() const { return cq_.get(); }
    ibv_comp_channel* comp_channel() const { return comp_.get(); }
    // Keys of the data area (host, staged bounce slots or GPU memory) and of the control area.
    uint32_t data_lkey() const { return mem_->data_lkey(); }
    uint32_t ctrl_lkey() const { return mem_->ctrl_lkey(); }
    std::byte* data() const { return mem_->data(); }  // a GPU address when memory().mode() is direct
    const HostBuffer& buffer() const { return mem_->host(); }
    const RdmaDataMemory& memory() const { return *mem_; }
    const BufferSpec& buffer_spec() const { return where_; }  // this side's --buffer
    // Receiver's ring slot `s` of QP `q`; the sender's single pattern message is slot 0 of QP 0 (a
    // staged sender has a ring of bounce slots like a receiver's).
    std::byte* slot(size_t q, uint32_t s) const { return data() + (q * slots_ + s) * message_size_; }
    // 128 control bytes per QP (host memory): [0,64) receives end messages, [64,128) sends them.
    std::byte* ctrl_recv(size_t q) const { return mem_->ctrl() + q * 128; }
    std::byte* ctrl_send(size_t q) const { return ctrl_recv(q) + 64; }
    uint32_t max_inline() const { return max_inline_; }
    // rr: a message goes in pieces of at most the port's max_msg_sz (one work request each).
    uint64_t piece_size() const { return piece_; }
    uint32_t pieces() const { return pieces_; }
    uint32_t send_depth() const { return send_depth_; }
    bool peer_gone() const;  // a DISCONNECTED (or worse) event arrived on our cm channel
    const RdmaInfo& info() const { return info_; }
    RdmaInfo& info() { return info_; }
    std::string local_address() const;

private:
    RdmaOp op_;
    Role role_;
    RdmaOptions opt_;
    bool cq_auto_stream_;  // --cq-mode auto on a stream test: the device's kind may still change the mode
    uint64_t message_size_;
    uint32_t slots_;
    std::string want_device_;
    BufferSpec where_;
    GpuPath gpu_path_;
    size_t align_;
    uint64_t data_bytes_ = 0;
    uint32_t max_inline_ = 0;
    uint32_t send_depth_ = 0;
    uint32_t recv_depth_ = 0;
    bool rr_ = false;  // rr: one message buffer both ways (source and landing), not a ring
    uint64_t piece_ = 0;
    uint32_t pieces_ = 1;
    ibv_pd* pd() const { return group_ ? group_->pd.get() : pd_.get(); }
    // Where the CQ and QPs are made: the thread's parent domain (--thread-domains), else the PD.
    ibv_pd* qp_pd() const { return parent_ ? parent_.get() : pd(); }
    void open_thread_domain(ibv_context* ctx);
    // Declared so that destruction runs QPs, MR, CQ, channel, parent domain, thread domain, PD,
    // shared context (reverse order).
    CmEventChannel channel_;
    std::shared_ptr<DeviceGroup> group_;
    ProtectionDomain pd_;
    ThreadDomain td_;
    ProtectionDomain parent_;  // ibv_alloc_parent_domain over pd() and td_
    CompletionChannel comp_;
    CompletionQueue cq_;
    std::optional<RdmaDataMemory> mem_;  // registered in open_device (MRs before the PD goes)
    std::vector<QueuePair> own_qps_;     // --qps-per-context: ibv_create_qp on the group's PD
    std::vector<CmId> qps_;
    std::vector<PeerBuffer> peers_;
    RdmaInfo info_;
    mutable bool gone_ = false;
};

// The verbs kind's connection, held by the data connection as a KindConnection (core/data_connection.hpp):
// neither interrupt() nor tcp_fd(), as the verbs loops never block unbounded and look at their abort flag.
using RdmaConnectionPtr = std::unique_ptr<RdmaConnection>;

// Client: connects stream `stream` (all its QPs) to the server's rdma_cm port. Throws
// std::runtime_error saying what to do next (no device, refused, unreachable, ...).
RdmaConnectionPtr connect_rdma_stream(const std::string& server_address, uint16_t port, uint64_t token, int stream,
                                      const HalfSpec& half, Role role, std::chrono::milliseconds timeout,
                                      std::shared_ptr<DeviceGroup> group = nullptr);

// Server: an rdma_cm listener on the address the control connection arrived on, port 0.
class RdmaListener {
public:
    RdmaListener(const std::string& bind_address, int backlog);
    uint16_t port() const { return port_; }
    // Accepts streams x qps connections presenting `token`; the rest are rejected. Returns one
    // connection per stream, in stream order. Throws std::runtime_error on failure or timeout.
    std::vector<DataConnection> accept(const HalfSpec& half, Role role, uint64_t token,
                                       std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped);

private:
    std::string address_;
    CmEventChannel channel_;
    CmId id_;
    uint16_t port_ = 0;
};

// The device, port, GID index, MTU and link layer behind an rdma_cm id (after bind or route).
void fill_device_info(rdma_cm_id* id, RdmaInfo& info);
// The same for a local address (rsockets hide their cm_id): binds a throw-away id to it.
RdmaInfo device_info_for(const std::string& local_address);

// Throws std::runtime_error when this host has no RDMA device at all, naming what to do.
void require_rdma_device();
// --rdma-dev: the device the connection really uses must be the one asked for ("" = any).
void require_wanted_device(const std::string& wanted, const std::string& used);

}  // namespace zc
