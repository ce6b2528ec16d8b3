#pragma once
// Data-connection set-up for the RDMA transports, as the TCP one is in tcp_socket.hpp: the server
// listens (rsockets, or rdma_cm for verbs) on the address the control connection arrived on and
// announces the port in Ready; the client connects each stream (each QP) presenting the token.
// Compiled in every build; without rdma-core each call throws saying so.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "protocol/test_spec.hpp"
#include "core/data_connection.hpp"

namespace zc {

class RdmaDataListener {
public:
    // Throws std::runtime_error naming what is missing (no RDMA device, address not on one, ...).
    RdmaDataListener(const ServerSpec& half, Role role, const std::string& bind_address);
    ~RdmaDataListener();
    uint16_t port() const;
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

std::vector<DataConnection> connect_rdma_streams(const ServerSpec& half, Role role, const std::string& server_address,
                                                 uint16_t port, uint64_t token, std::chrono::milliseconds timeout);

}  // namespace zc
