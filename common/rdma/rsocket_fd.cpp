// How an rsocket closes (rdma/rsocket_fd.hpp).
#include "rdma/rsocket_fd.hpp"

#include <rdma/rsocket.h>

#include <thread>

namespace zc {

void RsocketFd::reset() {
    if (fd_ >= 0) {
        if (abandoned_)
            std::thread([fd = fd_] { ::rclose(fd); }).detach();
        else
            ::rclose(fd_);
    }
    fd_ = -1;
    abandoned_ = false;
}

}  // namespace zc
