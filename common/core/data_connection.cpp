#include "core/data_connection.hpp"

#include <sys/socket.h>

#include <thread>

#include "tcp/tcp_socket.hpp"

#if ZCPERF_WITH_RDMA
#include <rdma/rsocket.h>

#include "rdma/rdma_connection.hpp"
#include "rdma/sockaddr_text.hpp"
#endif

namespace zc {

void RsocketFd::reset() {
#if ZCPERF_WITH_RDMA
    if (fd_ >= 0 && abandoned_) {
        std::thread([fd = fd_] { ::rclose(fd); }).detach();
    } else if (fd_ >= 0) {
        ::rclose(fd_);
    }
#endif
    fd_ = -1;
    abandoned_ = false;
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
    // rsockets are not shut down here: rshutdown can block behind the data thread's own call; their
    // loops look at the abort flag instead (rsocket_paths.cpp), as the verbs loops do.
    if (int fd = tcp_fd(c); fd >= 0) ::shutdown(fd, SHUT_RDWR);
    if (auto* rs = std::get_if<RsocketFd>(&c)) rs->abandon();
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
