#include "socket/socket_rr.hpp"
#include "socket/socket_rr_loops.hpp"

#include <netinet/in.h>
#include <linux/tcp.h>  // tcp_info with the data segment counts (glibc's is older)
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace zc {

void set_no_delay(int fd) {
    int one = 1;
    if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) {
        throw std::runtime_error(std::string("setsockopt(TCP_NODELAY) failed: ") + std::strerror(errno));
    }
}

uint64_t tcp_data_segments(int fd, bool out) {
    tcp_info info{};
    socklen_t len = sizeof(info);
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
    return out ? info.tcpi_data_segs_out : info.tcpi_data_segs_in;
}

template class RrInitiator<HostRrMessage>;
template class RrResponder<HostRrMessage>;
template class RrInitiator<GpuRrMessage>;
template class RrResponder<GpuRrMessage>;

}  // namespace zc
