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
#include "transport/tcp_msgrate.hpp"
#include "transport/tcp_rr.hpp"
#include "transport/data_connection.hpp"
#if ZCPERF_WITH_RDMA
#include "rdma/rsocket_paths.hpp"
#include "rdma/verbs_paths.hpp"
#define ZC_RDMA_EXCHANGE_PATHS , RdmaRr, RdmaMsgRateSender, RdmaMsgRateReceiver, RsocketRrInitiator, RsocketRrResponder
#else
#define ZC_RDMA_EXCHANGE_PATHS
#endif

namespace zc {

using ExchangePath = std::variant<std::monostate, TcpRrInitiator, TcpRrResponder, TcpRrGpuInitiator, TcpRrGpuResponder,
                                  TcpMsgRateSender, TcpMsgRateReceiver ZC_RDMA_EXCHANGE_PATHS>;

// Builds the loop for this side of a message test on its data connection, in the side's --buffer
// memory (rr over TCP: host, pinned or GPU; otherwise host only); `rtt` receives the initiator's
// round trips (the caller keeps it, so it outlives the path). Throws std::runtime_error naming the cause.
void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, DataConnection& conn, LatencyHistogram& rtt);
// TCP only: the loop on a socket the caller keeps owning (tests, and the overload above for TCP).
void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, int fd, LatencyHistogram& rtt);
// The RDMA alternatives (rdma_data_path.cpp; in a build without rdma-core it throws saying so).
void make_rdma_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, DataConnection& conn,
                             LatencyHistogram& rtt);
const HostBuffer* buffer_of(const ExchangePath& path);
StreamCounters run_exchange_path(ExchangePath& path, const StopRule& stop);

// Why msgrate cannot use this --buffer ("" when it can): its sender batches host messages.
std::string msgrate_buffer_problem(const BufferSpec& b);

// Buffer memory one stream of a message test allocates on the given side (verbs msgrate: the
// receiver's ring of at least rdma_wire::kMsgrateWindow slots per QP).
uint64_t exchange_buffer_bytes(TestKind test, Role role, uint64_t message_size, const BufferSpec& buffer = {},
                               Transport transport = Transport::tcp, const RdmaOptions& rdma = {});

// Why this combination cannot run as a message test ("" when it can), in words for the user: both
// zcperf's command line and zcserver's setup check it.
// `rdma`: the verbs options, which rr restricts (one QP, no post list); --thread-domains needs a verbs
// transport in every test (stream tests too).
std::string exchange_spec_problem(TestKind test, Transport transport, RxMode rx, uint64_t total_bytes, uint32_t batch,
                                  const RdmaOptions& rdma = {});

}  // namespace zc
