#pragma once
// One test's data connections, whatever carries them (TCP, rsockets, rdma_cm), behind one interface:
// the server listens on the address the control connection arrived on and announces the port in
// Ready; the client connects each stream presenting the token. Every wait is bounded.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocol/test_spec.hpp"
#include "core/data_connection.hpp"
#include "core/unique_fd.hpp"

namespace zc {

class RdmaDataListener;
class UdpListener;

class DataListener {
public:
    // Throws std::runtime_error naming what is missing (the port, an RDMA device on the address, ...).
    DataListener(const ServerSpec& half, Role role, const std::string& bind_address);
    ~DataListener();
    DataListener(const DataListener&) = delete;
    DataListener& operator=(const DataListener&) = delete;
    uint16_t port() const { return port_; }
    // The half's streams, each having presented the token, before the deadline. Throws
    // std::runtime_error when fewer arrive, or kStoppedBeforeStart when `stopped` is set first.
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped);

private:
    int streams_;
    UniqueFd tcp_;
    std::unique_ptr<RdmaDataListener> rdma_;  // rsocket / rdma_cm transports instead of tcp_
    std::unique_ptr<UdpListener> udp_;        // UDP transports: a socket per client stream (udp/udp_setup.hpp)
    uint16_t port_ = 0;
};

// The client's streams: TCP to host:port (host as the user gave it), RDMA to `address` (the numeric
// address the control connection reached: rdma_cm connects by address, never by name).
std::vector<DataConnection> connect_data_streams(const ServerSpec& half, Role role, const std::string& host,
                                                 const std::string& address, uint16_t port, uint64_t token);

// The numeric local address a stream's data leaves from ("" when unknown).
std::string local_address_of(const DataConnection& c);

}  // namespace zc
