#pragma once
// The staged byte-stream loops (declared in staged_stream.hpp). Included by the files that
// instantiate them for their socket calls: staged_stream.cpp (TCP), rdma/rsocket_paths.cpp.
#include <algorithm>
#include <cerrno>

#include "socket/staged_stream.hpp"

namespace zc {

template <class Calls, class Copy>
StagedStreamSender<Calls, Copy>::StagedStreamSender(int fd, size_t message_size, size_t alignment, int device)
    : StagedStreamEnd<Copy>(fd, message_size, alignment, device), staged_(static_cast<size_t>(this->ring_.slots()), 0) {
    upload_pattern(this->ring_, Copy::data(this->gpu_), Copy::size(this->gpu_), message_size, Calls::pattern);
    this->ring_.reset_counts();
}

// Queues the next piece of a large message, or the next batch of small ones, into slot i. A byte
// budget is applied here, so exactly the budget is staged; the deadline is checked before each send.
template <class Calls, class Copy>
bool StagedStreamSender<Calls, Copy>::stage(int i, const StopRule& stop) {
    if (ended_) return false;
    size_t n = 0;
    const std::byte* src = Copy::data(this->gpu_);
    if (this->shape_.batch == 1) {
        if (msg_off_ == msg_len_) {
            size_t next = stop.next_length(committed_, this->message_size_);
            if (next == 0) {
                ended_ = true;
                return false;
            }
            msg_len_ = next;
            msg_off_ = 0;
        }
        n = std::min(this->shape_.slot_bytes, msg_len_ - msg_off_);
        src += msg_off_;
        msg_off_ += n;
    } else {
        for (size_t k = 0; k < this->shape_.batch; ++k) {
            size_t len = stop.next_length(committed_ + n, this->message_size_);
            n += len;
            if (len < this->message_size_) {  // a budget's last, short message, or the end
                ended_ = true;
                break;
            }
        }
        if (n == 0) return false;
    }
    this->ring_.fill_from_device(i, src, n);
    staged_[static_cast<size_t>(i)] = n;
    committed_ += n;
    return true;
}

template <class Calls, class Copy>
StreamCounters StagedStreamSender<Calls, Copy>::run(const StopRule& stop) {
    StreamCounters c;
    const int slots = this->ring_.slots();
    // One send() per message, as the host path makes (per piece for messages over a slot).
    const size_t per_send = std::min(this->message_size_, this->shape_.slot_bytes);
    int filled = 0;
    try {
        this->ring_.copier().make_current();
        while (filled < slots && stage(filled, stop)) ++filled;
        bool stopped = false;
        // Slots head, head+1, ... (mod slots) hold staged data in wire order.
        for (int head = 0; filled > 0 && !stopped; head = (head + 1) % slots) {
            this->ring_.wait(head);
            const std::byte* p = this->ring_.slot(head);
            for (size_t left = staged_[static_cast<size_t>(head)]; left > 0;) {
                // The deadline (and an abort) is checked per send, as on the host path, so staged
                // data past it is not sent; a byte budget was applied when staging.
                if (stop.byte_budget == 0 && stop.next_length(c.bytes, per_send) == 0) {
                    stopped = true;
                    break;
                }
                ssize_t n = Calls::send(this->fd_, p, std::min(left, per_send));
                if (n < 0) {
                    if (errno == EINTR) continue;
                    c.error = errno;
                    c.failed_call = Calls::send_call;
                    break;
                }
                c.bytes += static_cast<uint64_t>(n);
                ++c.ops;
                stop.publish(c);
                p += n;
                left -= static_cast<size_t>(n);
            }
            if (c.error) break;
            --filled;
            if (!stopped && stage(head, stop)) ++filled;
        }
        this->ring_.wait_all();  // no copy may still write a slot when the ring goes
    } catch (const std::exception& e) {
        stage_failed(c, e);
    }
    Calls::shutdown(this->fd_, SHUT_WR);
    c.staging = this->ring_.counts();
    return c;
}

template <class Calls, class Copy>
StagedStreamReceiver<Calls, Copy>::StagedStreamReceiver(int fd, size_t message_size, size_t alignment, int device)
    : StagedStreamEnd<Copy>(fd, message_size, alignment, device) {
    Copy::zero(this->gpu_);
}

template <class Calls, class Copy>
StreamCounters StagedStreamReceiver<Calls, Copy>::run(const StopRule& stop) {
    StreamCounters c;
    const int slots = this->ring_.slots();
    std::byte* const gpu = Copy::data(this->gpu_);
    const size_t ring_bytes = Copy::size(this->gpu_);  // message_size * batch
    // At most one message per recv(), as the host path asks (a piece for messages over a slot).
    const size_t per_recv = std::min(this->message_size_, this->shape_.slot_bytes);
    int slot = 0;
    size_t fill = 0;  // bytes received into the current slot
    size_t off = 0;   // where the current slot's bytes go in the GPU buffer
    size_t limit = std::min(this->shape_.slot_bytes, ring_bytes);
    try {
        this->ring_.copier().make_current();
        while (true) {
            ssize_t n = Calls::recv(this->fd_, this->ring_.slot(slot) + fill, std::min(limit - fill, per_recv));
            if (n > 0) {
                if (!Calls::check(this->ring_.slot(slot) + fill, static_cast<size_t>(n), c.bytes,
                                  this->message_size_)) {
                    c.error = EBADMSG;
                    c.failed_call = "pattern check (received bytes that were not sent)";
                    break;
                }
                c.bytes += static_cast<uint64_t>(n);
                ++c.ops;
                stop.publish(c);
                fill += static_cast<size_t>(n);
                if (fill < limit) continue;
                this->ring_.drain_to_device(slot, gpu + off, fill);
                off = (off + fill) % ring_bytes;
                fill = 0;
                slot = (slot + 1) % slots;
                this->ring_.wait(slot);  // its previous copy must be done before recv writes it again
                limit = std::min(this->shape_.slot_bytes, ring_bytes - off);
            } else if (n == 0) {
                break;
            } else if (errno != EINTR) {
                c.error = errno;
                c.failed_call = Calls::recv_call;
                break;
            }
        }
        if (fill > 0) this->ring_.drain_to_device(slot, gpu + off, fill);
        this->ring_.wait_all();  // the data is in GPU memory when the stream's result is reported
    } catch (const std::exception& e) {
        stage_failed(c, e);
        Calls::shutdown(this->fd_, SHUT_RDWR);  // the sender sees the end instead of a stall
    }
    c.staging = this->ring_.counts();
    return c;
}

}  // namespace zc
