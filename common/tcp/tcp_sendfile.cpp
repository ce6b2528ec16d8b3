#include "tcp/tcp_sendfile.hpp"

#include "tcp/tcp_copy.hpp"  // send_until_stop

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
    return send_until_stop(fd_, size_, "sendfile", stop, [&](size_t len) {
        off_t offset = 0;  // every call sends the file's first len bytes again: it stays in the page cache
        return ::sendfile(fd_, file_.get(), &offset, len);
    });
}

}  // namespace zc
