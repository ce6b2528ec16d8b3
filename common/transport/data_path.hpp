#pragma once
// The data paths, chosen once per stream before the measured interval. Each is a concrete class
// whose run() holds the hot loop; std::visit dispatches once per stream, never per message.
// A new path = one file plus one alternative and one case here.
#include <variant>

#include "memory/buffer_spec.hpp"
#include "memory/gpu_path.hpp"
#include "transport/tcp_copy.hpp"
#include "transport/tcp_gpu_staged.hpp"
#include "transport/tcp_msg_zerocopy.hpp"
#include "transport/tcp_rx_discard.hpp"
#include "transport/tcp_rx_zerocopy.hpp"
#include "transport/tcp_sendfile.hpp"
#include "transport/tcp_uring_zc.hpp"
#include "transport/transport_registry.hpp"

namespace zc {

using SendPath = std::variant<std::monostate, TcpCopySender, TcpSendfileSender, TcpMsgZerocopySender, TcpUringZcSender, TcpStagedSender>;
using RecvPath = std::variant<std::monostate, TcpCopyReceiver, TcpZerocopyReceiver, TcpSpliceReceiver, TcpTruncReceiver, TcpStagedReceiver>;

struct PathOptions {
    size_t message_size = 0;
    size_t alignment = 4096;
    bool uring_fixed = false;
    BufferSpec buffer{};                // host, pinned or GPU memory (--buffer)
    GpuPath gpu_path = GpuPath::auto_;  // how GPU memory meets the network (--gpu-path)
};

// Whether a transport can have the NIC DMA into GPU memory itself (GPUDirect RDMA). No TCP path can:
// the socket code copies through CPU-addressable pages. Verbs transports answer true.
bool path_can_dma_gpu(Transport t);

// Construct in place (some paths own kernel objects that cannot move). Throw std::runtime_error
// naming what is missing (no io_uring, SO_ZEROCOPY refused, ...).
void make_send_path(SendPath& path, Transport t, int fd, const PathOptions& o);
void make_recv_path(RecvPath& path, RxMode m, int fd, const PathOptions& o);

// The path's user-space data buffer (nullptr for paths without one: sendfile's page cache,
// splice, trunc), for reading back where its pages are.
const HostBuffer* buffer_of(const SendPath& path);
const HostBuffer* buffer_of(const RecvPath& path);

// Buffer memory one stream of a path allocates (what a server checks against its limit).
uint64_t path_buffer_bytes(bool sending, Transport t, RxMode m, uint64_t message_size);

StreamCounters run_send_path(SendPath& path, const StopRule& stop);
StreamCounters run_recv_path(RecvPath& path);

}  // namespace zc
