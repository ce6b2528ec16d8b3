#include "tcp/tcp_sendfile.hpp"

#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace zc {

TcpSendfileSender::TcpSendfileSender(int fd, size_t message_size) : fd_(fd), size_(message_size) {
    file_.reset(memfd_create("zcperf-sendfile", MFD_CLOEXEC));
    if (!file_) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    std::vector<char> chunk(1 << 20);
    for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>('a' + i % 26);
    for (size_t done = 0; done < message_size;) {
        size_t len = std::min(chunk.size(), message_size - done);
        ssize_t n = ::pwrite(file_.get(), chunk.data(), len, static_cast<off_t>(done));
        if (n <= 0) throw std::runtime_error(std::string("filling the sendfile memfd: ") + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
}

StreamCounters TcpSendfileSender::run(const StopRule& stop) {
    StreamCounters c;
    while (size_t len = stop.next_length(c.bytes, size_)) {
        off_t offset = 0;
        ssize_t n = ::sendfile(fd_, file_.get(), &offset, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = "sendfile";
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
    }
    ::shutdown(fd_, SHUT_WR);
    return c;
}

}  // namespace zc
