#include "paths/stream_path.hpp"

#include <stdexcept>

#include "kind/spec_rules.hpp"
#include "kind/transport_ops.hpp"

namespace zc {

void make_stream_path(StreamLoop& path, const HalfSpec& half, Role role, DataConnection& conn, LatencyHistogram& rtt) {
    if (std::string why = spec_problem(half, role); !why.empty()) throw std::runtime_error(why);
    const TransportOps& ops = transport_ops(half.transport);
    if (is_message_test(half.test))
        ops.make_exchange(path, half, role, conn, rtt);
    else if (role == Role::send)
        ops.make_send(path, half, conn);
    else
        ops.make_recv(path, half, conn);
}

std::string path_name(const HalfSpec& half, Role role) {
    const TransportOps& ops = transport_ops(half.transport);
    return ops.path_name ? ops.path_name(half, role) : transport_name(half.transport);
}

void read_back_settings(const HalfSpec& half, Role role, const DataConnection& conn, SideResult& r) {
    const TransportOps& ops = transport_ops(half.transport);
    if (ops.settings_in_force) ops.settings_in_force(half, role, conn, r);
}

std::any kind_reading_of(const HalfSpec& half, const DataConnection& conn) {
    const TransportOps& ops = transport_ops(half.transport);
    return ops.stream_reading ? ops.stream_reading(half, conn) : std::any();
}

std::any interval_reading_of(const HalfSpec& half, const DataConnection& conn) {
    const TransportOps& ops = transport_ops(half.transport);
    return ops.interval_block && ops.stream_reading ? ops.stream_reading(half, conn) : std::any();
}

void read_interval_block(const HalfSpec& half, std::span<const std::any> before, std::span<const std::any> after,
                         double interval_s, KindBlocks& blocks) {
    const TransportOps& ops = transport_ops(half.transport);
    if (ops.interval_block) ops.interval_block(before, after, interval_s, blocks);
}

void read_kind_block(const HalfSpec& half, Role role, std::span<const KindStream> streams, SideResult& r) {
    const TransportOps& ops = transport_ops(half.transport);
    if (ops.kind_block) ops.kind_block(half, role, streams, r);
}

std::any kind_counts_of(Transport t, const StreamLoop& path) {
    const TransportOps& ops = transport_ops(t);
    return ops.loop_counts ? ops.loop_counts(path) : std::any();
}

LatencyHistogram connect_latency_of(Transport t, const StreamLoop& path) {
    const TransportOps& ops = transport_ops(t);
    return ops.connect_latency ? ops.connect_latency(path) : LatencyHistogram{};
}

}  // namespace zc
