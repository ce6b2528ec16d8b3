#pragma once
// The tcp kind's loops on a socket the caller keeps owning: what kTcpOps builds on a data connection,
// and what the tests build on a socketpair. Each checks spec_problem(half, role) first and throws
// std::runtime_error naming what the half cannot run or what is missing (no io_uring, SO_ZEROCOPY
// refused, ...). The loops a test checks for are in the headers it includes (the copy and staged
// loops, here; the zero-copy ones in their own tcp/ files).
#include <memory>
#include <any>
#include <span>
#include <string>
#include <vector>

#include "core/stream_loop.hpp"
#include "measure/latency_histogram.hpp"
#include "protocol/run_spec.hpp"
#include "socket/socket_rr.hpp"
#include "socket/staged_stream.hpp"
#include "tcp/tcp_copy.hpp"
#include "tcp/tcp_socket.hpp"
#include "core/data_connection.hpp"

namespace zc {

// The socket loops (socket/) on the kernel's sockets, as -T tcp runs them.
template <class Copy>
using TcpStagedSender = StagedStreamSender<KernelSockets, Copy>;  // --buffer cuda (CudaStageCopy), sim-gpu
template <class Copy>
using TcpStagedReceiver = StagedStreamReceiver<KernelSockets, Copy>;
using TcpRrInitiator = RrInitiator<HostRrMessage, KernelSockets>;
using TcpRrResponder = RrResponder<HostRrMessage, KernelSockets>;
using TcpRrGpuInitiator = RrInitiator<GpuRrMessage, KernelSockets>;
using TcpRrGpuResponder = RrResponder<GpuRrMessage, KernelSockets>;

// The tcp kind's table, whose functions another kind of stream socket reuses (its loops, read-backs), with its
// own listen and connect (listen_stream_sockets, connect_stream_sockets).
struct TransportOps;
extern const TransportOps kTcpOps;

// kTcpOps's listener and connections on another kind's stream socket (tcp/tcp_socket.hpp's StreamSocket: MPTCP's,
// SMC's), whose loops are the tcp kind's. keep_listening: left open after its streams are in
// (KindListener::keeps_listening) until the test ends, for a kind whose connections later add subflows that join
// on this address and port.
class KindListener;
struct PeerAddress;
std::unique_ptr<KindListener> listen_stream_sockets(const HalfSpec& half, const std::string& bind_address,
                                                    const StreamSocket& socket, bool keep_listening);
std::vector<DataConnection> connect_stream_sockets(const HalfSpec& half, const PeerAddress& peer, uint64_t token,
                                                   const StreamSocket& socket);

// The TCP family's report block (tcp/tcp_report.hpp) of a side, into r.kinds: each stream's TCP_INFO
// over the measured interval (from its reading at the start, stream_reading's), the first connection's
// settings and low-water mark, crr's close method. kTcpOps's kind_block; the other kinds on kernel TCP
// sockets (those reusing this table) call it beside their own block.
struct KindStream;
struct SideResult;
void write_tcp_block(const HalfSpec& half, Role role, std::span<const KindStream> streams, SideResult& r);

// kTcpOps for another kind of stream socket on the tcp kind's loops (MPTCP's, SMC's): its own listen, connect and
// block, its reading at a stream's start (nullptr: none); the receiver's path is "<kind> rx-copy"; no interval block
// and no receive mode but copy (TCP_INFO, TCP_ZEROCOPY_RECEIVE, splice and MSG_TRUNC are a TCP socket's).
struct StreamSocketKind {
    std::unique_ptr<KindListener> (*listen)(const HalfSpec&, Role, const std::string&);
    std::vector<DataConnection> (*connect)(const HalfSpec&, Role, const PeerAddress&, uint64_t);
    std::any (*stream_reading)(const HalfSpec&, const DataConnection&);
    void (*kind_block)(const HalfSpec&, Role, std::span<const KindStream>, SideResult&);
};
TransportOps tcp_loops_ops(const StreamSocketKind& kind);
// Whether fd is a listener (crr's server holds its listeners as its streams: nothing to read there).
bool is_listener(int fd);
// What such a kind's block says of crr: only the streams' first connections are read.
inline constexpr const char* kCrrFirstConnectionsOnly =
    "crr: each transaction's connection closes within the loop, so only the streams' first connections are read "
    "(the client's side)";

void make_tcp_send(StreamLoop& loop, const HalfSpec& half, int fd);
void make_tcp_recv(StreamLoop& loop, const HalfSpec& half, int fd);
void make_tcp_exchange(StreamLoop& loop, const HalfSpec& half, Role role, int fd, LatencyHistogram& rtt);

}  // namespace zc
