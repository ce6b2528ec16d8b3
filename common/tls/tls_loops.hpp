#pragma once
// The tls kind's user-space loops: SSL_write and SSL_read on an OpenSSL session, so the copy and the
// encryption (or decryption) are OpenSSL's, in user space. The stream sender writes whole messages
// (OpenSSL cuts them into records), ends with close_notify and the TCP half-close; the receiver reads
// record by record, checks the decrypted pattern at each read's ends (a byte out of place is an error,
// as a bad record MAC is OpenSSL's) and ends at close_notify. rr runs the socket loops (socket/) with
// SSL calls. Nothing in a loop allocates or calls virtually: one SSL call per message or record.
#include <cstddef>

#include "core/stream_counters.hpp"
#include "measure/latency_histogram.hpp"
#include "memory/host_buffer.hpp"
#include "socket/socket_rr.hpp"

struct ssl_st;

namespace zc {

class TlsSender {
public:
    TlsSender(ssl_st* ssl, int fd, size_t message_size, size_t alignment)
        : ssl_(ssl), fd_(fd), buf_(message_size, alignment) {}
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    ssl_st* ssl_;
    int fd_;
    HostBuffer buf_;
};

class TlsReceiver {
public:
    TlsReceiver(ssl_st* ssl, size_t message_size, size_t alignment)
        : ssl_(ssl), message_size_(message_size), buf_(message_size, alignment) {}
    StreamCounters run(const StopRule& stop);  // until the peer's close_notify
    const HostBuffer& buffer() const { return buf_; }

private:
    ssl_st* ssl_;
    size_t message_size_;
    HostBuffer buf_;
};

// The socket loops' call policy (socket/socket_calls.hpp) on the session of the thread's stream: the
// calls take the descriptor, the session is the one TlsRr put in place for its run.
struct SslCalls {
    static constexpr const char* send_call = "SSL_write";
    static constexpr const char* recv_call = "SSL_read";
    static ssize_t send(int fd, const void* p, size_t n);
    static ssize_t recv(int fd, void* p, size_t n);
    static ssize_t recv_whole(int fd, void* p, size_t n) { return recv(fd, p, n); }
    static void shutdown(int fd, int how);
    static void no_delay(int fd);
    static uint64_t segments(int fd, bool out);
    static std::byte pattern(uint64_t offset);
    static bool check(const std::byte*, size_t, uint64_t, size_t) { return true; }
};

// An rr loop on SSL calls: puts its session in place for the thread that runs it.
template <class Loop>
class TlsRr {
public:
    template <class... Args>
    explicit TlsRr(ssl_st* ssl, Args&&... args) : ssl_(ssl), loop_(std::forward<Args>(args)...) {}
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return loop_.buffer(); }

private:
    ssl_st* ssl_;
    Loop loop_;
};

using TlsRrInitiator = TlsRr<RrInitiator<HostRrMessage, SslCalls>>;
using TlsRrResponder = TlsRr<RrResponder<HostRrMessage, SslCalls>>;
extern template class TlsRr<RrInitiator<HostRrMessage, SslCalls>>;
extern template class TlsRr<RrResponder<HostRrMessage, SslCalls>>;

}  // namespace zc
