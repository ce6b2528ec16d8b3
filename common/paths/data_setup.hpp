#pragma once
// One test's data connections, whatever carries them, behind one interface: the server listens on the
// address the control connection arrived on and announces the port in Ready; the client connects each
// stream presenting the token. Every wait is bounded. The transport's operations table
// (transport_ops.hpp) does the work; nothing here names a transport.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/data_connection.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

class KindListener;

class DataListener {
public:
    // Throws std::runtime_error naming what is missing (the port, an RDMA device on the address, ...).
    DataListener(const HalfSpec& half, Role role, const std::string& bind_address);
    ~DataListener();
    DataListener(const DataListener&) = delete;
    DataListener& operator=(const DataListener&) = delete;
    uint16_t port() const;
    bool keeps_listening() const;  // KindListener::keeps_listening: open until the test ends
    // The half's streams, each having presented the token, before the deadline. Throws
    // std::runtime_error when fewer arrive, or kStoppedBeforeStart when `stopped` is set first.
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped);

private:
    std::unique_ptr<KindListener> listener_;
};

// The client's streams to the server's data port: `host` as the user gave it, `address` the numeric
// address the control connection reached (rdma_cm connects by address, never by name).
std::vector<DataConnection> connect_data_streams(const HalfSpec& half, Role role, const std::string& host,
                                                 const std::string& address, uint16_t port, uint64_t token);

// The numeric local address a stream's data leaves from ("" when unknown).
std::string local_address_of(Transport t, const DataConnection& c);

}  // namespace zc
