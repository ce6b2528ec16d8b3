#include "udp/udp_sender.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#include <cerrno>
#include <stdexcept>

#include "socket/zerocopy_completions.hpp"
#include "system/pacing.hpp"
#include "system/topology.hpp"
#include "udp/udp_socket.hpp"
#include "udp/udp_wire.hpp"

namespace zc {

namespace {
constexpr int kEndWaitMs = 2000;  // the end marker is repeated until answered, this long at most
constexpr int kEndEveryMs = 20;

size_t buffer_bytes(const UdpSendOptions& o) {
    if (o.zerocopy) return kUdpSeqHeader;  // the data lives in the ring
    return o.bytes_per_call * (o.gso ? 1 : o.batch);
}
}  // namespace

UdpSender::UdpSender(int fd, const UdpSendOptions& o) : fd_(fd), o_(o), buf_(buffer_bytes(o), o.alignment) {
    if (o_.gso) {
        size_t mtu = path_mtu_payload(fd_);
        gso_size_ = o_.gso_size ? o_.gso_size : mtu;
        if (!gso_size_) throw std::runtime_error("udp-gso: the path MTU is unknown; give --gso-size");
        if (std::string why = udp_size_problem(o_.bytes_per_call, gso_size_, mtu, true); !why.empty())
            throw std::runtime_error(why);
        set_udp_segment(fd_, gso_size_);
    } else if (std::string why = udp_size_problem(o_.bytes_per_call, 0, 0, true); !why.empty()) {
        throw std::runtime_error(why);
    }
    if (o_.zerocopy) {
        set_udp_zerocopy(fd_);
        ring_.emplace(o_.bytes_per_call, o_.alignment);
    }
    if (o_.batch > 1 && !o_.gso) {
        iov_.resize(o_.batch);
        msgs_.resize(o_.batch);
        for (unsigned i = 0; i < o_.batch; ++i) {
            iov_[i] = {buf_.data() + i * o_.bytes_per_call, o_.bytes_per_call};
            msgs_[i] = {};
            msgs_[i].msg_hdr.msg_iov = &iov_[i];
            msgs_[i].msg_hdr.msg_iovlen = 1;
        }
    }
    if (o_.bitrate) {
        method_ = kernel_paces(fd_, o_.bitrate, interface_of_socket(fd_)) ? PacingMethod::kernel_fq
                                                                          : PacingMethod::sender_clock;
    }
}

bool UdpSender::reap(StreamCounters& c, int wait_ms) {
    unsigned got = read_zerocopy_completions(fd_, wait_ms, [&](uint32_t lo, uint32_t hi, bool copied) {
        ++c.zerocopy.completions;
        for (uint32_t id = lo; id != hi + 1; ++id) {  // one notification covers the ids [lo, hi]
            size_t slot = id % ring_->slots();
            if (!ring_->busy(slot)) continue;
            uint64_t b = ring_->release(slot);
            if (copied) c.zerocopy.copied_bytes += b;
        }
    });
    return got > 0;
}

// The per-call work inline: headers, the send, the counts; a failed send (rare) goes out of line.
inline bool UdpSender::send_call(std::byte* data, size_t len, int flags, int64_t now, StreamCounters& c) {
    const uint64_t first = seq_;
    if (gso_size_ == 0) {
        write_seq(data, seq_++, now);
    } else {
        for (size_t off = 0; off < len; off += gso_size_) write_seq(data + off, seq_++, now);
    }
    if (::send(fd_, data, len, flags | MSG_NOSIGNAL) < 0 && !send_again(data, len, flags, c)) [[unlikely]] {
        seq_ = first;  // nothing of this call left
        return false;
    }
    c.bytes += len;
    udp_.datagrams += seq_ - first;
    ++c.ops;
    return true;
}

bool UdpSender::send_again(std::byte* data, size_t len, int flags, StreamCounters& c) {
    while (errno == EINTR || (errno == ENOBUFS && ring_)) {
        if (errno == ENOBUFS) {  // optmem_max exhausted by pinned pages: wait for completions
            ++c.zerocopy.enobufs;
            reap(c, 10);
        }
        if (::send(fd_, data, len, flags | MSG_NOSIGNAL) >= 0) return true;
    }
    c.error = errno;
    c.failed_call = ring_ ? "send(MSG_ZEROCOPY)" : "send";
    // Linux refused UDP_SEGMENT over a device without checksum offload until 2024 ("udp: Allow GSO transmit
    // from devices with no checksum offload"); Debian 12's 6.1 still does, e.g. on a virtio-net without
    // VIRTIO_NET_F_CSUM. The only other EIO here is an IPsec (xfrm) policy on the path.
    if (errno == EIO && gso_size_)
        c.failed_call =
            "send with UDP_SEGMENT (this kernel segments UDP only where the egress device offloads checksums: "
            "ethtool -k shows tx-checksumming off, or an IPsec policy covers the path; use -T udp)";
    return false;
}

StreamCounters UdpSender::run(const StopRule& stop) {
    StreamCounters c;
    c.pacing.method = method_;
    udp_.gso_size = gso_size_;
    const size_t m = o_.bytes_per_call;
    // The sender's clock (the stop rule's pacer) keeps the average rate even where fq paces: fq drops a flow's packets
    // past its flow_limit (100) instead of blocking a UDP sender, so fq alone would turn a burst into losses (counted
    // as the host's Udp SndbufErrors); with both, fq only smooths what arrives at the rate.
    while (true) {
        if (stop.byte_budget && c.bytes >= stop.byte_budget) break;
        size_t len = stop.next_length(c.bytes, m);
        if (!len) break;
        if (len < kUdpSeqHeader) len = kUdpSeqHeader;  // -n's last scrap still carries its header
        if (ring_) {
            size_t slot = next_zc_id_ % ring_->slots();
            bool waited = false;
            for (; ring_->busy(slot); waited = true) reap(c, 1000);  // the kernel still holds this slot's pages
            // After a wait for completions the stop rule's reading is stale: the send time is now.
            if (!send_call(ring_->data(slot), len, MSG_ZEROCOPY, waited ? monotonic_ns() : stop.call_time_ns(), c))
                break;
            ring_->hand_over(slot, len);
            ++next_zc_id_;
            c.zerocopy.sent_bytes += len;
            if (ring_->in_flight() > ring_->slots() / 2) reap(c, 0);
        } else if (!msgs_.empty() && len == m) {
            const int64_t now = stop.call_time_ns();
            const unsigned batch = static_cast<unsigned>(msgs_.size());
            for (unsigned i = 0; i < batch; ++i) write_seq(buf_.data() + i * m, seq_ + i, now);
            int r = ::sendmmsg(fd_, msgs_.data(), batch, MSG_NOSIGNAL);
            if (r < 0) {
                if (errno == EINTR) continue;
                c.error = errno;
                c.failed_call = "sendmmsg";
                break;
            }
            seq_ += static_cast<unsigned>(r);
            udp_.datagrams += static_cast<unsigned>(r);
            c.bytes += static_cast<uint64_t>(r) * m;
            ++c.ops;
        } else if (!send_call(buf_.data(), len, 0, stop.call_time_ns(), c)) {
            break;
        }
        if (o_.count_messages) c.messages = udp_.datagrams;
        stop.publish(c);
    }
    if (ring_)
        for (int tries = 0; ring_->in_flight() > 0 && tries < 50; ++tries) reap(c, 100);
    if (!c.error) send_end(c);
    return c;
}

void UdpSender::send_end(StreamCounters& c) {
    std::byte end[kUdpSeqHeader], answer[kUdpSeqHeader];
    write_seq(end, kUdpEnd, static_cast<int64_t>(seq_));
    const int64_t give_up = monotonic_ns() + int64_t{kEndWaitMs} * 1000000;
    while (monotonic_ns() < give_up) {
        if (::send(fd_, end, sizeof(end), MSG_NOSIGNAL) < 0 && errno != EINTR && errno != ENOBUFS) {
            if (errno == ECONNREFUSED) return;  // the receiver's socket is gone: it ended already
            c.error = errno;
            c.failed_call = "send (end marker)";
            return;
        }
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, kEndEveryMs) <= 0) continue;
        ssize_t n = ::recv(fd_, answer, sizeof(answer), MSG_DONTWAIT);
        if (n == static_cast<ssize_t>(sizeof(answer)) && read_seq(answer).seq == kUdpEndAck) return;
    }
    // No answer: the receiver counts without the marker (it ends at its own bounded wait) and says so.
}

}  // namespace zc
