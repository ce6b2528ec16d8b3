#pragma once
// Which data paths this build has, and what each can do. Adding a transport = one file plus one
// entry here. The capabilities are data in the transport's row (UCX perftest's test-type table is the
// model), read by one check, spec_problem() (test_rules.hpp), on both zcperf and zcserver.
#include <string>
#include <string_view>
#include <vector>

#include "core/test_kind.hpp"
#include "core/buffer_spec.hpp"

namespace zc {

enum class Transport {
    tcp,
    tcp_sendfile,
    tcp_msgzc,
    tcp_uringzc,
    // RDMA (common/rdma/): built only with rdma-core; otherwise listed as not in this build.
    rsocket,
    rsocket_iomap,
    rdma_write,
    rdma_send,
    rdma_read,
    // UDP (common/udp/): datagrams with sequence numbers, loss counted by the receiver.
    udp,
    udp_gso,
    udp_msgzc
};

// How a transport connects and moves data. The RDMA kinds choose their receiver themselves (--rx does
// not apply) and connect through rsockets or rdma_cm instead of a TCP data connection.
enum class TransportKind { tcp, rsocket, verbs, udp };

// What one stream's sender allocates (buffer_bytes, test_rules.hpp): one message, a ring of messages awaiting
// zero-copy completions, or a memfd the kernel sends from.
enum class SendBuffer { message, zc_ring, file };

// Bit sets of test kinds and memory kinds, for the table's rows.
constexpr unsigned bit(TestKind t) { return 1u << static_cast<unsigned>(t); }
constexpr unsigned bit(MemoryKind m) { return 1u << static_cast<unsigned>(m); }

// How the receiving side of a stream takes the data: TCP's copy, zerocopy, splice, trunc; UDP's
// copy (one datagram per recvmsg), mmsg (recvmmsg) and gro (UDP_GRO's coalesced datagrams).
enum class RxMode { copy, zerocopy, splice, trunc, mmsg, gro };

struct TransportInfo {
    Transport id;
    const char* name;
    const char* summary;
    TransportKind kind;
    unsigned tests;  // bit(TestKind) of each test it runs
    // Why it runs no message test it lacks (after "rr over NAME is not offered: "); nullptr: a bulk sender path.
    const char* no_message_tests;
    unsigned buffers;  // bit(MemoryKind) of the memory its loops hand the kernel or the NIC (stream tests)
    bool gpu_direct;   // the NIC can DMA GPU memory itself (GPUDirect RDMA: a dmabuf memory region)
    SendBuffer send_buffer;
    bool built = true;  // false: known, but this build lacks what it needs (rdma-core)
};

const std::vector<TransportInfo>& transport_table();
const TransportInfo& transport_info(Transport t);
inline bool is_rdma(Transport t) {
    return transport_info(t).kind == TransportKind::rsocket || transport_info(t).kind == TransportKind::verbs;
}
inline bool is_udp(Transport t) { return transport_info(t).kind == TransportKind::udp; }
inline bool is_verbs(Transport t) { return transport_info(t).kind == TransportKind::verbs; }
std::vector<std::string> available_transports();  // those built in
bool transport_built(Transport t);                // false: known, but this build lacks what it needs
// Throws std::invalid_argument listing the transports built in when the name is unknown, or
// naming what the build lacks for a known one that is not built in.
Transport transport_from_name(std::string_view name);
const char* transport_name(Transport t);

const char* rx_mode_name(RxMode m);
RxMode rx_mode_from_name(std::string_view name);  // throws std::invalid_argument listing the modes

}  // namespace zc
