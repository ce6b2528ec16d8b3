// The RDMA members of the data-connection variant (core/data_connection.hpp).
#include "core/data_connection.hpp"

#include <rdma/rsocket.h>

#include <thread>

#include "rdma/rdma_connection.hpp"

namespace zc {

void RsocketFd::reset() {
    if (fd_ >= 0 && abandoned_) {
        std::thread([fd = fd_] { ::rclose(fd); }).detach();
    } else if (fd_ >= 0) {
        ::rclose(fd_);
    }
    fd_ = -1;
    abandoned_ = false;
}

void RdmaConnectionDeleter::operator()(RdmaConnection* c) const { delete c; }

}  // namespace zc
