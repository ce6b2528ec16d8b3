#include "transport/data_connection.hpp"

#include <sys/socket.h>

#include "transport/tcp_socket.hpp"

#if ZCPERF_WITH_RDMA
#include <rdma/rsocket.h>

#include "rdma/rdma_connection.hpp"
#include "rdma/sockaddr_text.hpp"
#endif

namespace zc {

void RsocketFd::reset() {
#if ZCPERF_WITH_RDMA
    if (fd_ >= 0) ::rclose(fd_);
#endif
    fd_ = -1;
}

void RdmaConnectionDeleter::operator()(RdmaConnection* c) const {
#if ZCPERF_WITH_RDMA
    delete c;
#else
    (void)c;
#endif
}

int tcp_fd(const DataConnection& c) {
    const UniqueFd* fd = std::get_if<UniqueFd>(&c);
    return fd ? fd->get() : -1;
}

void interrupt(DataConnection& c) {
    if (int fd = tcp_fd(c); fd >= 0) ::shutdown(fd, SHUT_RDWR);
#if ZCPERF_WITH_RDMA
    if (auto* rs = std::get_if<RsocketFd>(&c); rs && *rs) ::rshutdown(rs->get(), SHUT_RDWR);
#endif
}

std::string local_address_of(const DataConnection& c) {
    if (int fd = tcp_fd(c); fd >= 0) return local_address(fd);
#if ZCPERF_WITH_RDMA
    if (auto* rs = std::get_if<RsocketFd>(&c); rs && *rs) {
        sockaddr_storage ss{};
        socklen_t len = sizeof(ss);
        if (::rgetsockname(rs->get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0) return sockaddr_text(ss);
    }
    if (auto* r = std::get_if<RdmaConnectionPtr>(&c); r && *r) return (*r)->local_address();
#endif
    return {};
}

}  // namespace zc
