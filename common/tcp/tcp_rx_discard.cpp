#include "tcp/tcp_rx_discard.hpp"
#include "tcp/tcp_copy.hpp"

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace zc {

TcpSpliceReceiver::TcpSpliceReceiver(int fd, size_t message_size) : fd_(fd) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    pipe_rd_.reset(p[0]);
    pipe_wr_.reset(p[1]);
    // A pipe holds 64 KiB by default; a larger one moves more per call (up to pipe-max-size).
    int want = static_cast<int>(std::clamp<size_t>(message_size, 65536, 1 << 20));
    int got = fcntl(pipe_wr_.get(), F_SETPIPE_SZ, want);
    chunk_ = got > 0 ? static_cast<size_t>(got) : 65536;
    null_.reset(open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (!null_) throw std::runtime_error(std::string("/dev/null: ") + std::strerror(errno));
}

StreamCounters TcpSpliceReceiver::run(const StopRule& stop) {
    StreamCounters c;
    while (true) {
        ssize_t n = ::splice(fd_, nullptr, pipe_wr_.get(), nullptr, chunk_, SPLICE_F_MOVE);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = "splice";
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
        for (ssize_t left = n; left > 0;) {  // drain the pipe: the data is discarded
            ssize_t d =
                ::splice(pipe_rd_.get(), nullptr, null_.get(), nullptr, static_cast<size_t>(left), SPLICE_F_MOVE);
            if (d <= 0) {
                if (d < 0 && errno == EINTR) continue;
                c.error = d < 0 ? errno : EIO;
                c.failed_call = "splice to /dev/null";
                return c;
            }
            left -= d;
        }
    }
    return c;
}

StreamCounters TcpTruncReceiver::run(const StopRule& stop) {
    return recv_until_end(fd_, nullptr, chunk_, MSG_TRUNC, "recv(MSG_TRUNC)", stop);
}

}  // namespace zc
