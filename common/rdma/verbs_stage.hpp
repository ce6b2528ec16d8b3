#pragma once
// Where the verbs loops (verbs_paths.hpp) take a message from and put it: a policy each loop is
// templated on, chosen once per stream (no virtual call per message; the in-place policies' hooks
// compile away).
//
// Sender (rdma-write, rdma-send):
//   TxInPlace: host memory, or GPU memory registered directly (data_memory.hpp): every work request
//     sends the one pattern message where it is.
//   TxStaged<Copy>: GPU memory staged through the registered host ring: one bounce slot per message
//     in flight on each QP. Message n of QP q uses slot n % slots; it is copied GPU -> slot ahead of
//     time (top_up: as soon as the send that last used the slot has completed), and its copy is waited
//     for just before the post. So the copy engine fills the next slots while the NIC sends earlier ones.
// Receiver (rdma-write, rdma-send, and rdma-read's sink):
//   RxInPlace: check a pattern sample of each message where it landed, then poison it.
//   RxDirect: GPU memory registered directly: the CPU cannot sample each message; the last message
//     of each used slot is checked in GPU memory at the end (blocking copies of the samples).
//   RxStaged<Copy>: the message landed in a host bounce slot: check its samples there, queue the copy
//     slot -> GPU, and give the slot back (repost, credit, next read) only once the copy is done
//     (settle), when the samples are poisoned; the NIC meanwhile lands later messages in other slots.
//     At the end the samples are checked again in GPU memory.
// Copy is the staging pipeline's policy (memory/stage_ring.hpp): CUDA, or memcpy for sim-gpu.
#include <vector>

#include "memory/stage_ring.hpp"
#include "rdma/rdma_connection.hpp"
#include "rdma/wire.hpp"

namespace zc {

namespace verbs_stage_detail {
inline std::byte wire_pattern(uint64_t offset) { return static_cast<std::byte>(rdma_wire::pattern_byte(offset)); }

// The three samples check_samples looks at, read from memory the CPU cannot address (`read` copies).
template <class Read>
bool check_samples_via(Read&& read, const std::byte* p, uint64_t len) {
    if (len == 0) return true;
    std::byte s[24];
    const uint64_t offs[3] = {0, len / 2, len > 8 ? len - 8 : 0};
    for (int k = 0; k < 3; ++k) {
        uint64_t n = len - offs[k] < 8 ? len - offs[k] : 8;
        read(s + 8 * k, p + offs[k], n);
        for (uint64_t i = 0; i < n; ++i)
            if (static_cast<uint8_t>(s[8 * k + i]) != rdma_wire::pattern_byte(offs[k] + i)) return false;
    }
    return true;
}
}  // namespace verbs_stage_detail

class TxInPlace {
public:
    static constexpr bool staged = false;
    explicit TxInPlace(RdmaConnection& c) : data_(c.data()) {}
    std::byte* ready(size_t, uint64_t) { return data_; }
    void completed(size_t, uint32_t) {}
    void top_up(size_t, const StopRule&) {}
    StagingCounts counts() const { return {}; }

private:
    std::byte* data_;
};

template <class Copy>
class TxStaged {
public:
    static constexpr bool staged = true;
    TxStaged(RdmaConnection& c, int device)
        : msg_(c.message_size()),
          slots_(c.slots()),
          ring_(device, c.data(), msg_, static_cast<int>(c.qp_count() * slots_)),
          gpu_(Copy::allocate(device, msg_)),
          staged_(c.qp_count(), 0),
          done_(c.qp_count(), 0) {
        upload_pattern(ring_, Copy::data(gpu_), msg_, msg_, verbs_stage_detail::wire_pattern);
        ring_.reset_counts();
    }
    // The slot message n of QP q (its n-th post) goes from: staged now if top_up did not get to it
    // (the copy engine was behind), and its copy waited for (counted as the stage's wait).
    std::byte* ready(size_t q, uint64_t n) {
        int i = index(q, n);
        if (n >= staged_[q]) stage(q);
        ring_.wait(i);
        return ring_.slot(i);
    }
    // k more sends of QP q completed: their slots are free. With sim-gpu they are poisoned, so a
    // send from a slot that was not staged again reaches the receiver as bad data (the test catches it).
    void completed(size_t q, uint32_t k) {
        if constexpr (Copy::simulated) {
            for (uint32_t j = 0; j < k; ++j) rdma_wire::poison_samples(ring_.slot(index(q, done_[q] + j)), msg_);
        }
        done_[q] += k;
    }
    // Stage ahead on QP q into every slot whose last send has completed, while the stop rule would
    // still send (a byte budget is staged up to the budget; after the deadline nothing is staged).
    void top_up(size_t q, const StopRule& stop) {
        while (staged_[q] < done_[q] + slots_ && stop.next_length(committed_, msg_) != 0) stage(q);
    }
    StagingCounts counts() const { return ring_.counts(); }

private:
    int index(size_t q, uint64_t n) const { return static_cast<int>(q * slots_ + n % slots_); }
    void stage(size_t q) {
        ring_.fill_from_device(index(q, staged_[q]), Copy::data(gpu_), msg_);
        ++staged_[q];
        committed_ += msg_;
    }

    uint64_t msg_;
    uint32_t slots_;
    StageRing<Copy> ring_;                 // over the connection's registered data area
    typename Copy::Memory gpu_;            // the message, holding the pattern
    std::vector<uint64_t> staged_, done_;  // per QP: messages staged, sends completed
    uint64_t committed_ = 0;               // bytes staged, all QPs
};

class RxInPlace {
public:
    static constexpr bool staged = false;
    explicit RxInPlace(RdmaConnection& c) : c_(c) {}
    bool land(size_t q, uint32_t s, uint64_t len) { return rdma_wire::check_and_poison(c_.slot(q, s), len); }
    template <class After>
    bool settle(size_t, After&&) {
        return true;
    }
    bool verify_at_end() { return true; }
    StagingCounts counts() const { return {}; }

private:
    RdmaConnection& c_;
};

class RxDirect {
public:
    static constexpr bool staged = false;
    explicit RxDirect(RdmaConnection& c) : c_(c), len_(c.qp_count() * c.slots(), 0) {}
    bool land(size_t q, uint32_t s, uint64_t len) {
        len_[q * c_.slots() + s] = len;
        return true;
    }
    template <class After>
    bool settle(size_t, After&&) {
        return true;
    }
    bool verify_at_end() {
        const RdmaDataMemory& m = c_.memory();
        const std::byte* base = c_.data();
        for (size_t i = 0; i < len_.size(); ++i) {
            const std::byte* p = base + i * c_.message_size();
            auto read = [&](std::byte* dst, const std::byte* src, size_t n) {
                m.read_data(dst, static_cast<uint64_t>(src - base), n);
            };
            if (len_[i] && !verbs_stage_detail::check_samples_via(read, p, len_[i])) return false;
        }
        return true;
    }
    StagingCounts counts() const { return {}; }

private:
    RdmaConnection& c_;
    std::vector<uint64_t> len_;  // per slot: the last message's length (0: none landed)
};

template <class Copy>
class RxStaged {
public:
    static constexpr bool staged = true;
    RxStaged(RdmaConnection& c, int device)
        : c_(c),
          msg_(c.message_size()),
          slots_(c.slots()),
          ring_(device, c.data(), msg_, static_cast<int>(c.qp_count() * slots_)),
          gpu_(Copy::allocate(device, c.qp_count() * slots_ * msg_)),
          pending_(c.qp_count() * slots_),
          npending_(c.qp_count(), 0),
          len_(c.qp_count() * slots_, 0) {
        Copy::zero(gpu_);  // a slot no message reached fails the final check
    }
    // Message of `len` bytes landed in slot s of QP q: check it in the bounce slot, queue its copy on.
    bool land(size_t q, uint32_t s, uint64_t len) {
        std::byte* p = c_.slot(q, s);
        if (!rdma_wire::check_samples(p, len)) return false;
        size_t i = q * slots_ + s;
        ring_.drain_to_device(static_cast<int>(i), Copy::data(gpu_) + i * msg_, len);
        len_[i] = len;
        pending_[q * slots_ + npending_[q]++] = s;
        return true;
    }
    // Waits for QP q's queued copies; poisons each slot and hands it to after(slot) (repost).
    template <class After>
    bool settle(size_t q, After&& after) {
        for (uint32_t k = 0; k < npending_[q]; ++k) {
            uint32_t s = pending_[q * slots_ + k];
            size_t i = q * slots_ + s;
            ring_.wait(static_cast<int>(i));
            rdma_wire::poison_samples(c_.slot(q, s), len_[i]);
            if (!after(s)) return false;
        }
        npending_[q] = 0;
        return true;
    }
    // The last message of every slot, checked again where it ended: in GPU memory.
    bool verify_at_end() {
        ring_.wait_all();
        auto read = [](std::byte* dst, const std::byte* src, size_t n) { Copy::read(dst, src, n); };
        for (size_t i = 0; i < len_.size(); ++i) {
            if (len_[i] && !verbs_stage_detail::check_samples_via(read, Copy::data(gpu_) + i * msg_, len_[i]))
                return false;
        }
        return true;
    }
    StagingCounts counts() const { return ring_.counts(); }
    const typename Copy::Memory& device_buffer() const { return gpu_; }

private:
    RdmaConnection& c_;
    uint64_t msg_;
    uint32_t slots_;
    StageRing<Copy> ring_;
    typename Copy::Memory gpu_;      // the ring's copy in GPU memory, slot for slot
    std::vector<uint32_t> pending_;  // per QP: slots whose copy is queued, not yet settled
    std::vector<uint32_t> npending_;
    std::vector<uint64_t> len_;  // per slot: the last message's length
};

}  // namespace zc
