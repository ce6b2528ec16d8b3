#include "tcp/tcp_copy.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace zc {

StreamCounters TcpCopySender::run(const StopRule& stop) {
    return send_until_stop(fd_, buf_.size(), "send", stop,
                           [&](size_t len) { return ::send(fd_, buf_.data(), len, MSG_NOSIGNAL); });
}

StreamCounters recv_until_end(int fd, std::byte* buf, size_t len, int flags, const char* call, const StopRule& stop) {
    StreamCounters c;
    while (true) {
        ssize_t n = ::recv(fd, buf, len, flags);
        if (n > 0) {
            c.bytes += static_cast<uint64_t>(n);
            ++c.ops;
            stop.publish(c);
        } else if (n == 0) {
            break;
        } else if (errno != EINTR) {
            c.error = errno;
            c.failed_call = call;
            break;
        }
    }
    return c;
}

StreamCounters TcpCopyReceiver::run(const StopRule& stop) {
    return recv_until_end(fd_, buf_.data(), buf_.size(), 0, "recv", stop);
}

}  // namespace zc
