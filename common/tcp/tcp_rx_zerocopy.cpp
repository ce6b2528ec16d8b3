#include "tcp/tcp_rx_zerocopy.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace zc {

namespace {
size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
}  // namespace

TcpZerocopyReceiver::TcpZerocopyReceiver(int fd, size_t message_size)
    : fd_(fd),
      window_(std::max(page_size(), (message_size + page_size() - 1) / page_size() * page_size())),
      copy_(std::min<size_t>(window_, 1 << 20), page_size()) {
    map_ = ::mmap(nullptr, window_, PROT_READ, MAP_SHARED, fd_, 0);
    if (map_ == MAP_FAILED) {
        map_ = nullptr;
        throw std::runtime_error(std::string("mmap of the TCP socket failed (") + std::strerror(errno) +
                                 "): TCP_ZEROCOPY_RECEIVE needs Linux 4.18 or later");
    }
}

TcpZerocopyReceiver::~TcpZerocopyReceiver() {
    if (map_) ::munmap(map_, window_);
}

StreamCounters TcpZerocopyReceiver::run(const StopRule& stop) {
    StreamCounters c;
    while (true) {
        tcp_zerocopy_receive zc{};
        zc.address = reinterpret_cast<uintptr_t>(map_);
        zc.length = static_cast<uint32_t>(window_);
        socklen_t len = sizeof(zc);
        if (::getsockopt(fd_, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &len) != 0) {
            if (errno == EINTR) continue;
            // At the end of the stream some kernels answer EIO rather than a zero length.
            if (errno != EIO) {
                c.error = errno;
                c.failed_call = "getsockopt(TCP_ZEROCOPY_RECEIVE)";
                break;
            }
            zc.length = 0;
            zc.recv_skip_hint = 0;
        }
        if (zc.length > 0) {
            // The pages are ours to read now; the next getsockopt on this window replaces them.
            c.bytes += zc.length;
            c.zerocopy.rx_mapped_bytes += zc.length;
            ++c.ops;
            stop.publish(c);
        }
        if (zc.recv_skip_hint > 0) {
            // Bytes that cannot be mapped (not whole pages, or pages the sender copied): copy them.
            size_t want = std::min<size_t>(zc.recv_skip_hint, copy_.size());
            ssize_t n = ::recv(fd_, copy_.data(), want, MSG_DONTWAIT);
            if (n < 0 && errno != EINTR && errno != EAGAIN) {
                c.error = errno;
                c.failed_call = "recv";
                break;
            }
            if (n > 0) {
                c.bytes += static_cast<uint64_t>(n);
                c.zerocopy.rx_copied_bytes += static_cast<uint64_t>(n);
                ++c.ops;
                stop.publish(c);
            }
        } else if (zc.length == 0) {
            // Nothing queued: wait for data or the end of the stream (a stalled peer is an error).
            pollfd p{fd_, POLLIN, 0};
            int rc = ::poll(&p, 1, 10000);
            if (rc == 0) {
                c.error = EAGAIN;
                c.failed_call = "poll";
                break;
            }
            char probe;
            ssize_t n = ::recv(fd_, &probe, 1, MSG_PEEK | MSG_DONTWAIT);
            if (n == 0) break;
            if (n < 0 && errno != EAGAIN && errno != EINTR) {
                c.error = errno;
                c.failed_call = "recv";
                break;
            }
        }
    }
    return c;
}

}  // namespace zc
