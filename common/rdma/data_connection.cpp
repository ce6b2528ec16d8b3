// How the rdma layer's members of the data-connection variant (core/data_connection.hpp) are closed:
// core holds them with these functions, so it links without librdmacm and this layer's code.
#include <rdma/rsocket.h>

#include <thread>

#include "rdma/rdma_connection.hpp"
#include "rdma/rsocket_paths.hpp"

namespace zc {

void close_rsocket(int fd, bool abandoned) {
    if (abandoned)
        std::thread([fd] { ::rclose(fd); }).detach();
    else
        ::rclose(fd);
}

namespace {
void destroy(RdmaConnection* c) { delete c; }
}  // namespace

RdmaConnectionPtr make_rdma_connection(const HalfSpec& half, Role role, std::shared_ptr<DeviceGroup> group) {
    return RdmaConnectionPtr(new RdmaConnection(half, role, std::move(group)), RdmaConnectionDeleter{destroy});
}

}  // namespace zc
