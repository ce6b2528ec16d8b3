#include "tcp/tcp_crr.hpp"

#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace zc {

namespace {

// A transaction's longest silence before it is an error (the peer host or the link went away).
constexpr timeval kStall{10, 0};

inline int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline bool aborted(const StopRule& stop) { return stop.abort && stop.abort->load(std::memory_order_relaxed); }

inline bool fail(StreamCounters& c, const char* call, int err) {
    c.error = err;
    c.failed_call = call;
    return false;
}

// The whole buffer out, or the whole message in (MSG_WAITALL: one call however many segments).
inline bool send_all(int fd, const std::byte* b, size_t n, StreamCounters& c) {
    for (size_t done = 0; done < n;) {
        ssize_t r = ::send(fd, b + done, n - done, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return fail(c, "send", errno);
        done += static_cast<size_t>(r);
        ++c.ops;
    }
    return true;
}

// Bytes read into b up to n: n, fewer at the peer's end, -1 on an error (errno kept).
inline ssize_t recv_all(int fd, std::byte* b, size_t n, StreamCounters& c) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::recv(fd, b + got, n - got, MSG_WAITALL);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += static_cast<size_t>(r);
        ++c.ops;
    }
    return static_cast<ssize_t>(got);
}

}  // namespace

TcpCrrInitiator::TcpCrrInitiator(int anchor, const CrrShape& shape, LatencyHistogram& whole)
    : shape_(shape), buf_(std::max<size_t>(shape.message_size, 1), shape.alignment), whole_(whole) {
    peer_len_ = sizeof(peer_);
    if (getpeername(anchor, reinterpret_cast<sockaddr*>(&peer_), &peer_len_) != 0) peer_len_ = 0;
    // Each transaction's socket is the anchor's kind (TCP, MPTCP's IPPROTO_MPTCP, SMC's AF_SMC).
    socklen_t len = sizeof(protocol_);
    if (getsockopt(anchor, SOL_SOCKET, SO_PROTOCOL, &protocol_, &len) != 0) protocol_ = 0;
    len = sizeof(domain_);
    if (getsockopt(anchor, SOL_SOCKET, SO_DOMAIN, &domain_, &len) != 0) domain_ = peer_.ss_family;
    whole_.prepare();
    connect_.prepare();
}

int TcpCrrInitiator::open_socket(StreamCounters& c) const {
    int fd = ::socket(domain_, SOCK_STREAM | SOCK_CLOEXEC, protocol_);
    if (fd < 0) return fail(c, "socket", errno), -1;
    // SO_SNDTIMEO bounds connect() too; SO_RCVTIMEO the wait for the answer.
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &kStall, sizeof(kStall));
    if (shape_.with_data) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &kStall, sizeof(kStall));
    if (shape_.close == CrrClose::rst) {
        linger l{1, 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    }
    if (shape_.tuning.any()) {
        try {
            apply_tcp_tuning(fd, shape_.tuning);
        } catch (const std::exception&) {  // checked on the stream's own socket before the interval
            ::close(fd);
            return fail(c, "setsockopt", errno ? errno : EINVAL), -1;
        }
    }
    return fd;
}

StreamCounters TcpCrrInitiator::run(const StopRule& stop) {
    StreamCounters c;
    if (peer_len_ == 0) return fail(c, "getpeername", ENOTCONN), c;
    const size_t n = shape_.with_data ? shape_.message_size : 0;
    std::byte* b = buf_.data();
    while (!aborted(stop)) {
        int64_t t0 = now_ns();
        int fd = open_socket(c);
        if (fd < 0) break;
        int r;
        do {
            r = ::connect(fd, reinterpret_cast<const sockaddr*>(&peer_), peer_len_);
        } while (r != 0 && errno == EINTR);
        if (r != 0) {
            fail(c, "connect", errno);
            ::close(fd);
            break;
        }
        int64_t t1 = now_ns();
        if (n > 0) {
            if (!send_all(fd, b, n, c)) {
                ::close(fd);
                break;
            }
            ssize_t got = recv_all(fd, b, n, c);
            if (got != static_cast<ssize_t>(n)) {
                fail(c, "recv", got < 0 ? errno : ECONNRESET);
                ::close(fd);
                break;
            }
            c.bytes += n;
        }
        ::close(fd);
        int64_t t2 = now_ns();
        connect_.record(static_cast<uint64_t>(t1 - t0));
        whole_.record_transaction(t0, t2);
        ++c.messages;
        stop.publish(c);
        if (t2 >= stop.deadline_ns) break;
    }
    // The responders stop on goodbyes, one per initiator, also after an error here (so they end
    // at once instead of at their receive timeout); not after an abort (they are stopped already).
    if (!aborted(stop)) goodbye();
    return c;
}

void TcpCrrInitiator::goodbye() const {
    int fd = ::socket(domain_, SOCK_STREAM | SOCK_CLOEXEC, protocol_);
    if (fd < 0) return;
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &kStall, sizeof(kStall));
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&peer_), peer_len_) == 0 && !shape_.with_data) {
        char bye = 'B';
        (void)::send(fd, &bye, 1, MSG_NOSIGNAL);
    }
    ::close(fd);  // an orderly close: the responder reads the end (crr) or the byte first (cc)
}

TcpCrrResponder::TcpCrrResponder(int listener, const CrrShape& shape)
    : listener_(listener), shape_(shape), buf_(std::max<size_t>(shape.message_size, 1), shape.alignment) {}

StreamCounters TcpCrrResponder::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = shape_.with_data ? shape_.message_size : 0;
    std::byte* b = buf_.data();
    while (!aborted(stop)) {
        int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            fail(c, "accept", errno);
            break;
        }
        if (shape_.tuning.any()) {
            try {
                apply_tcp_tuning(fd, shape_.tuning);
            } catch (const std::exception&) {
                ::close(fd);
                fail(c, "setsockopt", errno ? errno : EINVAL);
                break;
            }
        }
        bool bye = false;
        if (n > 0) {
            ssize_t got = recv_all(fd, b, n, c);
            if (got == 0) {
                bye = true;  // a connection with no request: the initiator's goodbye
            } else if (got != static_cast<ssize_t>(n)) {
                fail(c, "recv", got < 0 ? errno : ECONNRESET);
                ::close(fd);
                break;
            } else {
                c.bytes += n;
                if (!send_all(fd, b, n, c)) {
                    ::close(fd);
                    break;
                }
            }
        }
        if (!bye) {
            // Wait for the initiator's close (its FIN, or its RST under --crr-close rst), so TIME_WAIT,
            // if any, is the initiator's; cc: one byte instead is the goodbye.
            char one;
            ssize_t r;
            do {
                r = ::recv(fd, &one, 1, 0);
            } while (r < 0 && errno == EINTR);
            if (r == 1 && n == 0) {
                bye = true;
            } else if (r < 0 && errno != ECONNRESET) {
                fail(c, "recv", errno);
                ::close(fd);
                break;
            }
        }
        ::close(fd);
        if (bye) break;
        ++c.messages;
        stop.publish(c);
    }
    return c;
}

}  // namespace zc
