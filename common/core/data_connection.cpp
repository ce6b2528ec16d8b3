#include "core/data_connection.hpp"

#include <sys/socket.h>

namespace zc {

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

}  // namespace zc
