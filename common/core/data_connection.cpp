#include "core/data_connection.hpp"

#include <sys/socket.h>

namespace zc {

int tcp_fd(const DataConnection& c) {
    if (const UniqueFd* fd = std::get_if<UniqueFd>(&c)) return fd->get();
    return std::get<KindConnection>(c).tcp_fd();
}

void interrupt(DataConnection& c) {
    if (const UniqueFd* fd = std::get_if<UniqueFd>(&c)) {
        if (*fd) ::shutdown(fd->get(), SHUT_RDWR);
    } else {
        std::get<KindConnection>(c).interrupt();
    }
}

}  // namespace zc
