#include "paths/rdma_setup.hpp"

#include <stdexcept>

#if ZCPERF_WITH_RDMA
#include "rdma/rdma_connection.hpp"
#include "rdma/rsocket_paths.hpp"
#endif

namespace zc {

#if ZCPERF_WITH_RDMA

struct RdmaDataListener::Impl {
    ServerSpec half;
    Role role;
    std::unique_ptr<RsocketListener> rs;
    std::unique_ptr<RdmaListener> cm;
};

RdmaDataListener::RdmaDataListener(const ServerSpec& half, Role role, const std::string& bind_address)
    : impl_(new Impl{half, role, nullptr, nullptr}) {
    if (is_verbs(half.transport)) {
        impl_->cm = std::make_unique<RdmaListener>(bind_address, half.streams * static_cast<int>(half.rdma.qps) + 8);
    } else {
        impl_->rs = std::make_unique<RsocketListener>(bind_address, half, role);
    }
}

RdmaDataListener::~RdmaDataListener() = default;

uint16_t RdmaDataListener::port() const { return impl_->cm ? impl_->cm->port() : impl_->rs->port(); }

std::vector<DataConnection> RdmaDataListener::accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                                     const std::atomic<bool>& stopped) {
    if (impl_->cm) return impl_->cm->accept(impl_->half, impl_->role, token, deadline, stopped);
    return impl_->rs->accept(impl_->half.streams, token, deadline, stopped);
}

std::vector<DataConnection> connect_rdma_streams(const ServerSpec& half, Role role, const std::string& server_address,
                                                 uint16_t port, uint64_t token, std::chrono::milliseconds timeout) {
    std::vector<DataConnection> out;
    std::shared_ptr<DeviceGroup> group;  // --qps-per-context K: a new one every K streams
    const uint32_t per_ctx = half.rdma.qps_per_context;
    for (int i = 0; i < half.streams; ++i) {
        if (is_verbs(half.transport)) {
            if (per_ctx && i % per_ctx == 0) group = std::make_shared<DeviceGroup>();
            out.emplace_back(connect_rdma_stream(server_address, port, token, i, half, role, timeout, group));
        } else {
            out.emplace_back(connect_rsocket(server_address, port, token, half, role, timeout));
        }
    }
    return out;
}

#else

struct RdmaDataListener::Impl {};
RdmaDataListener::RdmaDataListener(const ServerSpec&, Role, const std::string&) {
    throw std::runtime_error("this zcserver was built without rdma-core: no RDMA transports");
}
RdmaDataListener::~RdmaDataListener() = default;
uint16_t RdmaDataListener::port() const { return 0; }
std::vector<DataConnection> RdmaDataListener::accept(uint64_t, std::chrono::steady_clock::time_point,
                                                     const std::atomic<bool>&) {
    return {};
}
std::vector<DataConnection> connect_rdma_streams(const ServerSpec&, Role, const std::string&, uint16_t, uint64_t,
                                                 std::chrono::milliseconds) {
    throw std::runtime_error("this zcperf was built without rdma-core: no RDMA transports");
}

#endif

}  // namespace zc
