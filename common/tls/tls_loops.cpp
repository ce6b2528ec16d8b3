#include "tls/tls_loops.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <cerrno>

#include "memory/pattern.hpp"
#include "socket/socket_rr_loops.hpp"

namespace zc {

namespace {

// The stream thread's session, for SslCalls (set by TlsRr::run around its loop).
thread_local SSL* t_session = nullptr;

// A failed SSL call as an errno and a call name with OpenSSL's reason (static text: the counters keep
// the pointer). Empties the thread's error queue.
void record_failure(StreamCounters& c, SSL* ssl, int rc, bool reading) {
    int why = SSL_get_error(ssl, rc);
    int err = errno;
    unsigned long e = ERR_peek_error();
    ERR_clear_error();
    if (why == SSL_ERROR_SYSCALL && err) {
        c.error = err;
        c.failed_call = reading ? "SSL_read" : "SSL_write";
    } else if (ERR_GET_REASON(e) == SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC) {
        c.error = EBADMSG;
        c.failed_call = "SSL_read (bad record MAC: a record did not decrypt as sent)";
    } else if (why == SSL_ERROR_SYSCALL || ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        c.error = ECONNRESET;
        c.failed_call = reading ? "SSL_read (the peer's connection ended without close_notify, inside a record "
                                  "or between two)"
                                : "SSL_write (the peer's connection ended)";
    } else {
        c.error = EPROTO;
        c.failed_call = reading ? "SSL_read (OpenSSL refused a record)" : "SSL_write (OpenSSL error)";
    }
}

bool retry(SSL* ssl, int rc) { return SSL_get_error(ssl, rc) == SSL_ERROR_SYSCALL && errno == EINTR; }

}  // namespace

StreamCounters TlsSender::run(const StopRule& stop) {
    StreamCounters c;
    while (size_t len = stop.next_length(c.bytes, buf_.size())) {
        int n = SSL_write(ssl_, buf_.data(), static_cast<int>(len));  // whole: no partial writes asked for
        if (n <= 0) {
            if (retry(ssl_, n)) continue;
            record_failure(c, ssl_, n, false);
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
    }
    if (!c.error) SSL_shutdown(ssl_);  // close_notify: the receiver tells the end from a cut connection
    ::shutdown(fd_, SHUT_WR);
    return c;
}

StreamCounters TlsReceiver::run(const StopRule& stop) {
    StreamCounters c;
    std::byte* buf = buf_.data();
    const int len = static_cast<int>(buf_.size());
    while (true) {
        int n = SSL_read(ssl_, buf, len);
        if (n <= 0) {
            if (SSL_get_error(ssl_, n) == SSL_ERROR_ZERO_RETURN) break;  // close_notify
            if (retry(ssl_, n)) continue;
            record_failure(c, ssl_, n, true);
            break;
        }
        // The stream is the message's pattern over and over: each read's first and last byte sit where
        // the sender put them, or a record was decrypted out of place.
        const uint64_t at = c.bytes, m = message_size_;
        if (buf[0] != pattern_byte(at % m) || buf[n - 1] != pattern_byte((at + static_cast<uint64_t>(n) - 1) % m)) {
            c.error = EBADMSG;
            c.failed_call = "pattern check (SSL_read returned bytes that were not sent)";
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
    }
    return c;
}

// An SSL call's result as a socket call's: the bytes, 0 at close_notify, or -1 with errno set (EINTR: again).
ssize_t as_socket_call(int r, bool reading) {
    if (r > 0) return r;
    if (reading && SSL_get_error(t_session, r) == SSL_ERROR_ZERO_RETURN) return 0;
    if (retry(t_session, r)) {
        errno = EINTR;
        return -1;
    }
    StreamCounters c;
    record_failure(c, t_session, r, reading);
    errno = c.error;
    return -1;
}

ssize_t SslCalls::send(int, const void* p, size_t n) {
    return as_socket_call(SSL_write(t_session, p, static_cast<int>(n)), false);
}

ssize_t SslCalls::recv(int, void* p, size_t n) {
    return as_socket_call(SSL_read(t_session, p, static_cast<int>(n)), true);
}

void SslCalls::shutdown(int fd, int how) {
    SSL_shutdown(t_session);
    ::shutdown(fd, how);
}

void SslCalls::no_delay(int fd) { set_no_delay(fd); }
uint64_t SslCalls::segments(int fd, bool out) { return tcp_data_segments(fd, out); }
std::byte SslCalls::pattern(uint64_t offset) { return pattern_byte(offset); }

template <class Loop>
StreamCounters TlsRr<Loop>::run(const StopRule& stop) {
    t_session = ssl_;
    StreamCounters c = loop_.run(stop);
    t_session = nullptr;
    return c;
}

template class RrInitiator<HostRrMessage, SslCalls>;
template class RrResponder<HostRrMessage, SslCalls>;
template class TlsRr<RrInitiator<HostRrMessage, SslCalls>>;
template class TlsRr<RrResponder<HostRrMessage, SslCalls>>;

}  // namespace zc
