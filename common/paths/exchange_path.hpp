#pragma once
// The loops of the message tests (rr, msgrate), chosen once per stream before the measured interval
// like the stream tests' paths in data_path.hpp; std::visit dispatches once per stream, never per
// message. One alternative per (transport, role): RDMA adds its own here (a verbs ping-pong
// initiator and responder; a message-rate sender with --postlist, --qps-per-context, --inline), each
// filling the same StreamCounters (messages, segments) and, for rr, the same LatencyHistogram.
#include <string>
#include <variant>

#include "measure/latency_histogram.hpp"
#include "protocol/test_spec.hpp"
#include "tcp/tcp_msgrate.hpp"
#include "socket/socket_rr.hpp"
#include "core/data_connection.hpp"
#include "udp/udp_receiver.hpp"
#include "udp/udp_rr.hpp"
#include "udp/udp_sender.hpp"
#if ZCPERF_WITH_RDMA
#include "rdma/rsocket_paths.hpp"
#include "rdma/verbs_paths.hpp"
#define ZC_RDMA_EXCHANGE_PATHS , RdmaRr, RdmaMsgRateSender, RdmaMsgRateReceiver, RsocketRrInitiator, RsocketRrResponder
#else
#define ZC_RDMA_EXCHANGE_PATHS
#endif

namespace zc {

using ExchangePath =
    std::variant<std::monostate, TcpRrInitiator, TcpRrResponder, TcpRrGpuInitiator, TcpRrGpuResponder, TcpMsgRateSender,
                 TcpMsgRateReceiver, UdpRrInitiator, UdpRrResponder, UdpSender, UdpReceiver ZC_RDMA_EXCHANGE_PATHS>;

// Builds the loop for this side of a message test on its data connection, in the side's --buffer
// memory (rr over TCP: host, pinned or GPU; otherwise host only); `rtt` receives the initiator's
// round trips (the caller keeps it, so it outlives the path). Throws std::runtime_error naming the cause.
void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, DataConnection& conn,
                        LatencyHistogram& rtt);
// TCP only: the loop on a socket the caller keeps owning (tests, and the overload above for TCP).
void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, int fd, LatencyHistogram& rtt);
// The RDMA alternatives (rdma_data_path.cpp; in a build without rdma-core it throws saying so).
void make_rdma_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, DataConnection& conn,
                             LatencyHistogram& rtt);
const HostBuffer* buffer_of(const ExchangePath& path);
StreamCounters run_exchange_path(ExchangePath& path, const StopRule& stop);

}  // namespace zc
