#pragma once
// RAII owners of the rdma-core objects one RDMA stream holds: each releases exactly one kind of
// resource, in the destructor, and moves but never copies. Destruction order is the owner's job
// (RdmaConnection declares them so that QPs go before the CQ, the MR before the PD).
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <utility>

namespace zc {

template <typename T, int (*Release)(T*)>
class RdmaHandle {
public:
    RdmaHandle() = default;
    explicit RdmaHandle(T* p) : p_(p) {}
    RdmaHandle(const RdmaHandle&) = delete;
    RdmaHandle& operator=(const RdmaHandle&) = delete;
    RdmaHandle(RdmaHandle&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    RdmaHandle& operator=(RdmaHandle&& o) noexcept {
        if (this != &o) reset(std::exchange(o.p_, nullptr));
        return *this;
    }
    ~RdmaHandle() { reset(); }
    T* get() const { return p_; }
    T* operator->() const { return p_; }
    explicit operator bool() const { return p_ != nullptr; }
    void reset(T* p = nullptr) {
        if (p_) Release(p_);
        p_ = p;
    }
    T* release() { return std::exchange(p_, nullptr); }

private:
    T* p_ = nullptr;
};

namespace detail {
inline int destroy_channel(rdma_event_channel* c) {
    rdma_destroy_event_channel(c);
    return 0;
}
// ibv_dealloc_td is static inline in verbs.h: a handle type must not depend on internal linkage.
inline int dealloc_td(ibv_td* td) { return ibv_dealloc_td(td); }
// A cm_id owns its QP (rdma_create_qp): the QP goes first, then the id.
inline int destroy_cm_id(rdma_cm_id* id) {
    if (id->qp) rdma_destroy_qp(id);
    return rdma_destroy_id(id);
}
}  // namespace detail

using CmEventChannel = RdmaHandle<rdma_event_channel, detail::destroy_channel>;
using CmId = RdmaHandle<rdma_cm_id, detail::destroy_cm_id>;
using ProtectionDomain = RdmaHandle<ibv_pd, ibv_dealloc_pd>;
using CompletionChannel = RdmaHandle<ibv_comp_channel, ibv_destroy_comp_channel>;
using CompletionQueue = RdmaHandle<ibv_cq, ibv_destroy_cq>;
using MemoryRegion = RdmaHandle<ibv_mr, ibv_dereg_mr>;
using DeviceContext = RdmaHandle<ibv_context, ibv_close_device>;  // one we opened (--qps-per-context)
using QueuePair = RdmaHandle<ibv_qp, ibv_destroy_qp>;             // one made with ibv_create_qp, not rdma_create_qp
using ThreadDomain = RdmaHandle<ibv_td, detail::dealloc_td>;      // --thread-domains; its parent domain is a
                                                                  // ProtectionDomain (ibv_dealloc_pd frees both)

// A device context and PD that --qps-per-context K streams share (one opened per K streams). The
// streams hold it by shared_ptr and declare it before their CQ, QPs and MR, so it goes last.
struct DeviceGroup {
    DeviceContext context;  // declared first: destroyed after the PD
    ProtectionDomain pd;
};

// An acknowledged-on-destruction rdma_cm event (every event must be acked, or destroying its id hangs).
class CmEvent {
public:
    CmEvent() = default;
    explicit CmEvent(rdma_cm_event* e) : e_(e) {}
    CmEvent(const CmEvent&) = delete;
    CmEvent& operator=(const CmEvent&) = delete;
    CmEvent(CmEvent&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
    ~CmEvent() {
        if (e_) rdma_ack_cm_event(e_);
    }
    rdma_cm_event* operator->() const { return e_; }
    explicit operator bool() const { return e_ != nullptr; }
    void ack() {  // before destroying the event's id: rdma_destroy_id waits for its events' acks
        if (e_) rdma_ack_cm_event(std::exchange(e_, nullptr));
    }

private:
    rdma_cm_event* e_ = nullptr;
};

}  // namespace zc
