// The RDMA layer in a build without rdma-core (-DZCPERF_WITH_RDMA=OFF): no rsocket or RDMA
// connection is ever made (the registry lists those transports as not in this build), so the
// data-connection variant's RDMA members have nothing to close.
#include "core/data_connection.hpp"

namespace zc {

void RsocketFd::reset() {
    fd_ = -1;
    abandoned_ = false;
}

void RdmaConnectionDeleter::operator()(RdmaConnection*) const {}

}  // namespace zc
