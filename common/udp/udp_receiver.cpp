#include "udp/udp_receiver.hpp"

#include <linux/udp.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "udp/udp_socket.hpp"
#include "udp/udp_wire.hpp"

namespace zc {

namespace {
constexpr int kTickMs = 100;                // the socket's receive timeout: how often the loop looks up
constexpr int64_t kNoDataNs = 5000000000;   // nothing at all by this long past the test's end: an error
constexpr int64_t kSilenceNs = 2000000000;  // past the end, silent this long without an end marker: done
constexpr size_t kControlBytes = 64;        // per slot: SO_RXQ_OVFL's u32 and UDP_GRO's int
}  // namespace

UdpReceiver::UdpReceiver(int fd, const UdpRecvOptions& o)
    : fd_(fd),
      o_(o),
      slot_(o.mode == UdpRxMode::gro ? 65536 : std::max<size_t>(o.datagram_size, kUdpSeqHeader)),
      buf_(slot_ * (o.mode == UdpRxMode::mmsg ? kBatch : 1), o.alignment),
      drops_by_cmsg_(!socket_drops(fd)),
      snmp0_(read_udp_snmp()) {
    if (o_.mode == UdpRxMode::gro) set_udp_gro(fd_);
    if (drops_by_cmsg_) set_rxq_overflow(fd_);
    if (drops_by_cmsg_ || o_.mode == UdpRxMode::gro)
        control_.resize(kControlBytes * (o.mode == UdpRxMode::mmsg ? kBatch : 1));
    set_udp_receive_timeout(fd_, kTickMs);
    unsigned n = o_.mode == UdpRxMode::mmsg ? kBatch : 1;
    iov_.resize(n);
    msgs_.resize(n);
    for (unsigned i = 0; i < n; ++i) {
        iov_[i] = {buf_.data() + i * slot_, slot_};
        msgs_[i] = {};
        msgs_[i].msg_hdr.msg_iov = &iov_[i];
        msgs_[i].msg_hdr.msg_iovlen = 1;
    }
}

void UdpReceiver::read_control(const msghdr& m, size_t& segment) {
    for (const cmsghdr* cm = CMSG_FIRSTHDR(&m); cm;
         cm = CMSG_NXTHDR(const_cast<msghdr*>(&m), const_cast<cmsghdr*>(cm))) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL) {
            uint32_t d;
            std::memcpy(&d, CMSG_DATA(cm), sizeof(d));
            drops_ = std::max<uint64_t>(drops_, d);
        } else if (cm->cmsg_level == IPPROTO_UDP && cm->cmsg_type == UDP_GRO) {
            int s;
            std::memcpy(&s, CMSG_DATA(cm), sizeof(s));
            if (s > 0) segment = static_cast<size_t>(s);
        }
    }
}

inline bool UdpReceiver::take_datagram(const std::byte* data, size_t len, int64_t now, StreamCounters& c) {
    if (len < kUdpSeqHeader) [[unlikely]] {  // no zcperf sender sends this: count it, do not read a header from it
        c.bytes += len;
        return true;
    }
    SeqHeader h = read_seq(data);
    if (h.seq >= kUdpFirstControl) [[unlikely]] {
        if (h.seq != kUdpEnd) return true;  // a stray hello or answer
        acct_.sender_total(static_cast<uint64_t>(h.send_ns));
        return false;
    }
    acct_.datagram(h.seq, h.send_ns, now);
    c.bytes += len;
    return true;
}

bool UdpReceiver::take_segments(const std::byte* data, size_t len, size_t segment, int64_t now, StreamCounters& c) {
    bool more = true;
    for (size_t off = 0; off < len; off += segment)
        if (!take_datagram(data + off, std::min(segment, len - off), now, c)) more = false;
    return more;
}

StreamCounters UdpReceiver::run(const StopRule& stop) {
    StreamCounters c;
    const unsigned n = static_cast<unsigned>(msgs_.size());
    const int64_t start = monotonic_ns();
    int64_t last = 0;  // last arrival
    bool more = true;
    int flags = 0;  // MSG_DONTWAIT once the end marker came: drain what is queued, then stop
    const bool control = !control_.empty();
    while (more || flags) {
        for (unsigned i = 0; control && i < n; ++i) {  // the kernel shortens msg_controllen to what it wrote
            msgs_[i].msg_hdr.msg_control = control_.data() + i * kControlBytes;
            msgs_[i].msg_hdr.msg_controllen = kControlBytes;
        }
        int got;
        if (n == 1) {
            ssize_t r = ::recvmsg(fd_, &msgs_[0].msg_hdr, flags);
            got = r < 0 ? -1 : 1;
            if (r >= 0) msgs_[0].msg_len = static_cast<unsigned>(r);
        } else {
            got = ::recvmmsg(fd_, msgs_.data(), n, flags | MSG_WAITFORONE, nullptr);
        }
        if (got < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) {
                c.error = errno;
                c.failed_call = n == 1 ? "recvmsg" : "recvmmsg";
                break;
            }
            if (flags) break;  // drained after the end marker
            if (stop.abort && stop.abort->load(std::memory_order_relaxed)) break;
            int64_t now = monotonic_ns();
            int64_t end = std::max(stop.deadline_ns, start);
            if (last == 0 && now > end + kNoDataNs) {
                c.error = ETIMEDOUT;
                c.failed_call =
                    "no UDP datagram arrived by 5 s past the test's end (a firewall dropping UDP? the "
                    "sender failed?)";
                break;
            }
            if (last != 0 && now > end && now - last > kSilenceNs) break;  // silent, no end marker: report it missing
            continue;
        }
        // shutdown() (the side aborts: interrupt()) makes every read return 0 bytes at once.
        if (got == 1 && msgs_[0].msg_len == 0 && stop.abort && stop.abort->load(std::memory_order_relaxed)) break;
        const int64_t now = monotonic_ns();
        last = now;
        for (int i = 0; i < got; ++i) {
            const msghdr& m = msgs_[i].msg_hdr;
            size_t len = msgs_[i].msg_len;
            size_t segment = len;
            if (control) read_control(m, segment);
            if (m.msg_flags & MSG_TRUNC) {
                c.error = EMSGSIZE;
                c.failed_call = "recvmsg (a datagram larger than -m arrived: is the peer a zcperf of this test?)";
                more = false;
                break;
            }
            const auto* data = static_cast<const std::byte*>(iov_[i].iov_base);
            if (segment < len) {  // UDP_GRO coalesced several datagrams
                ++udp_.gro_buffers;
                if (!take_segments(data, len, segment, now, c)) more = false;
            } else if (!take_datagram(data, len, now, c)) {
                more = false;
            }
            ++c.ops;
        }
        if (c.error) break;
        if (!more && !flags) {
            flags = MSG_DONTWAIT;  // the end marker came: take what is still queued, then answer it
            std::byte ack[kUdpSeqHeader];
            write_seq(ack, kUdpEndAck, 0);
            for (int k = 0; k < 3; ++k) (void)::send(fd_, ack, sizeof(ack), MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        if (o_.count_messages) c.messages = acct_.received();
        stop.publish(c);
    }
    acct_.fill(udp_);
    if (!drops_by_cmsg_)
        if (std::optional<uint64_t> d = socket_drops(fd_)) drops_ = *d;
    udp_.kernel_drops = drops_;
    const UdpSnmp snmp1 = read_udp_snmp();
    if (snmp0_.valid && snmp1.valid) {  // the kernel's word, beside ours (read outside the hot loop)
        udp_.snmp_valid = true;
        udp_.snmp_in_errors = snmp1.in_errors - snmp0_.in_errors;
        udp_.snmp_rcvbuf_errors = snmp1.rcvbuf_errors - snmp0_.rcvbuf_errors;
        udp_.snmp_sndbuf_errors = snmp1.sndbuf_errors - snmp0_.sndbuf_errors;
    }
    if (o_.count_messages) c.messages = udp_.datagrams;
    return c;
}

}  // namespace zc
