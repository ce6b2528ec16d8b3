#include "core/data_connection.hpp"

#include <sys/socket.h>

namespace zc {

int tcp_fd(const DataConnection& c) {
    if (const UniqueFd* fd = std::get_if<UniqueFd>(&c)) return fd->get();
    if (const auto* s = std::get_if<SessionSocket>(&c)) return s->fd.get();
    if (const auto* flows = std::get_if<TcpFlowSockets>(&c); flows && !flows->fds.empty())
        return flows->fds.front().get();
    return -1;
}

void interrupt(DataConnection& c) {
    // rsockets are not shut down here: rshutdown can block behind the data thread's own call; their
    // loops look at the abort flag instead (rsocket_paths.cpp), as the verbs loops do.
    if (auto* flows = std::get_if<TcpFlowSockets>(&c))
        for (auto& fd : flows->fds) ::shutdown(fd.get(), SHUT_RDWR);
    else if (int fd = tcp_fd(c); fd >= 0)
        ::shutdown(fd, SHUT_RDWR);
    if (auto* rs = std::get_if<RsocketFd>(&c)) rs->abandon();
}

}  // namespace zc
