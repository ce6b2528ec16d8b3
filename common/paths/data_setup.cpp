#include "paths/data_setup.hpp"

#include "kind/transport_ops.hpp"

namespace zc {

DataListener::DataListener(const HalfSpec& half, Role role, const std::string& bind_address)
    : listener_(transport_ops(half.transport).listen(half, role, bind_address)) {}

DataListener::~DataListener() = default;

uint16_t DataListener::port() const { return listener_->port(); }

bool DataListener::keeps_listening() const { return listener_->keeps_listening(); }

std::vector<DataConnection> DataListener::accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                                 const std::atomic<bool>& stopped) {
    return listener_->accept(token, deadline, stopped);
}

std::vector<DataConnection> connect_data_streams(const HalfSpec& half, Role role, const std::string& host,
                                                 const std::string& address, uint16_t port, uint64_t token) {
    return transport_ops(half.transport).connect(half, role, PeerAddress{host, address, port}, token);
}

std::string local_address_of(Transport t, const DataConnection& c) {
    const TransportOps& ops = transport_ops(t);
    return ops.local_address ? ops.local_address(c) : std::string();
}

}  // namespace zc
