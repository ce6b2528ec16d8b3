#pragma once
// The data paths, chosen once per stream before the measured interval. Each is a concrete class
// whose run() holds the hot loop; std::visit dispatches once per stream, never per message.
// A new path = one file plus one alternative and one case here.
#include <variant>

#include "protocol/result.hpp"
#include "protocol/test_spec.hpp"
#include "core/buffer_spec.hpp"
#include "tcp/tcp_copy.hpp"
#include "socket/staged_stream.hpp"
#include "tcp/tcp_msg_zerocopy.hpp"
#include "tcp/tcp_rx_discard.hpp"
#include "tcp/tcp_rx_zerocopy.hpp"
#include "tcp/tcp_sendfile.hpp"
#include "tcp/tcp_uring_zc.hpp"
#include "core/transport_registry.hpp"
#include "core/data_connection.hpp"
#include "udp/udp_receiver.hpp"
#include "udp/udp_sender.hpp"
#if ZCPERF_WITH_RDMA
#include "rdma/rsocket_paths.hpp"
#include "rdma/verbs_paths.hpp"
#define ZC_RDMA_SEND_PATHS \
    , RsocketSender, RsocketIomapSender, RsocketStagedSender, RsocketSimStagedSender, RdmaSender, RdmaReadSource
#define ZC_RDMA_RECV_PATHS \
    , RsocketReceiver, RsocketIomapReceiver, RsocketStagedReceiver, RsocketSimStagedReceiver, RdmaReceiver, RdmaReadSink
#else
#define ZC_RDMA_SEND_PATHS
#define ZC_RDMA_RECV_PATHS
#endif

namespace zc {

using SendPath = std::variant<std::monostate, TcpCopySender, TcpSendfileSender, TcpMsgZerocopySender, TcpUringZcSender,
                              TcpStagedSender, TcpSimStagedSender, UdpSender ZC_RDMA_SEND_PATHS>;
using RecvPath = std::variant<std::monostate, TcpCopyReceiver, TcpZerocopyReceiver, TcpSpliceReceiver, TcpTruncReceiver,
                              TcpStagedReceiver, TcpSimStagedReceiver, UdpReceiver ZC_RDMA_RECV_PATHS>;

// The stream tests' paths for this half's transport (and, receiving over TCP, its --rx mode), in the
// half's --buffer memory. Construct in place (some paths own kernel objects that cannot move). Throw
// std::runtime_error naming what is missing (no io_uring, SO_ZEROCOPY refused, ...) or what the half
// cannot run (spec_problem). stream_path.hpp's make_stream_path is the one entry; these are its parts.
void make_send_path(SendPath& path, const ServerSpec& half, DataConnection& conn);
void make_recv_path(RecvPath& path, const ServerSpec& half, DataConnection& conn);
// UDP's loop options from the half (udp_ops.cpp).
UdpSendOptions udp_send_options(const ServerSpec& half);
UdpRecvOptions udp_recv_options(const ServerSpec& half);
// TCP and UDP: the loop on a socket the caller keeps owning (tests).
void make_send_path(SendPath& path, const ServerSpec& half, int fd);
void make_recv_path(RecvPath& path, const ServerSpec& half, int fd);

// The path's user-space data buffer (nullptr for paths without one: sendfile's page cache,
// splice, trunc), for reading back where its pages are.
const HostBuffer* buffer_of(const SendPath& path);
const HostBuffer* buffer_of(const RecvPath& path);

StreamCounters run_send_path(SendPath& path, const StopRule& stop);
StreamCounters run_recv_path(RecvPath& path, const StopRule& stop);  // receivers: publish, rdma-read's sink pulls

// RDMA paths (rdma_data_path.cpp): built on the stream's rsocket or RDMA connection, for this
// side's role. Throw std::runtime_error naming what failed; in a build without rdma-core, say so.
void make_rdma_send_path(SendPath& path, const ServerSpec& half, DataConnection& conn);
void make_rdma_recv_path(RecvPath& path, const ServerSpec& half, DataConnection& conn);
// What the RDMA path ran on and what registering its memory cost (empty for TCP).
RdmaInfo rdma_info_of(const DataConnection& conn, const SendPath& send, const RecvPath& recv);

}  // namespace zc
