#include "paths/stream_path.hpp"

namespace zc {

void make_stream_path(StreamPath& path, const ServerSpec& half, Role role, DataConnection& conn,
                      LatencyHistogram& rtt) {
    if (is_message_test(half.test))
        make_exchange_path(path.exchange, half, role, conn, rtt);
    else if (role == Role::send)
        make_send_path(path.send, half, conn);
    else
        make_recv_path(path.recv, half, conn);
}

const HostBuffer* buffer_of(const StreamPath& path) {
    if (const HostBuffer* b = buffer_of(path.exchange)) return b;
    if (const HostBuffer* b = buffer_of(path.send)) return b;
    return buffer_of(path.recv);
}

StreamCounters run_stream_path(StreamPath& path, const StopRule& stop) {
    if (!std::holds_alternative<std::monostate>(path.exchange)) return run_exchange_path(path.exchange, stop);
    if (!std::holds_alternative<std::monostate>(path.send)) return run_send_path(path.send, stop);
    return run_recv_path(path.recv, stop);
}

RdmaInfo rdma_info_of(const DataConnection& conn, const StreamPath& path) {
    return rdma_info_of(conn, path.send, path.recv);
}

}  // namespace zc
