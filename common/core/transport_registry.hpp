#pragma once
// Which data paths this build has, and what each can do: one row per transport. The capabilities are
// data in the row (UCX perftest's test-type table is the model), read by one check, spec_problem()
// (paths/spec_rules.hpp), on both zcperf and zcserver; the row's kind finds the operations table that
// connects it and builds its loops (paths/transport_ops.hpp). -T's help and --version list the rows.
#include <string>
#include <string_view>
#include <vector>

#include "core/workload.hpp"
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
    udp_msgzc,
    // MPTCP (IPPROTO_MPTCP, common/mptcp/): TCP's loops on multipath sockets, its subflows reported.
    mptcp,
    mptcp_sendfile,
    // TLS (common/tls/): OpenSSL's handshake, then OpenSSL's loops (tls) or the kernel's crypto (ktls*).
    tls,
    ktls,
    ktls_sendfile
};

// Which operations table connects a transport and builds its loops (paths/transport_ops.cpp): the kinds
// share nothing below the test rules, each has its own data connection (a TCP socket, an rsocket, QPs
// connected with rdma_cm). Nothing outside that table branches on the kind: what differs is a row field.
enum class TransportKind { tcp, rsocket, verbs, udp, mptcp, tls, ktls };

// What one stream's sender allocates (buffer_bytes, spec_rules.hpp): one message, a ring of messages awaiting
// zero-copy completions, or a memfd the kernel sends from.
enum class SendBuffer { message, zc_ring, file };

// Bit sets of test kinds and memory kinds, for the table's rows.
constexpr unsigned bit(Workload t) { return 1u << static_cast<unsigned>(t); }
constexpr unsigned bit(MemoryKind m) { return 1u << static_cast<unsigned>(m); }

// How an RDMA row's data reaches the receiver: the one thing that tells apart the rows of the rsocket kind
// and of the verbs kind. Their operations tables and the rdma/ loops read it from the row, never the id.
// send: two-sided, into buffers the receiver provides (rsend; verbs SEND into posted receives);
// write: one-sided, into the receiver's registered ring (riowrite; RDMA WRITE), arrivals announced apart;
// read: one-sided, the receiver pulls from the sender's registered buffer (RDMA READ).
enum class RdmaOp { none, send, write, read };

// Who encrypts a TLS row's records (common/tls/): OpenSSL in the process, or the kernel (kTLS, whose keys
// --tls-offload puts on the NIC); none: the row is not TLS.
enum class TlsCrypto { none, user, kernel };

// How the receiving side of a stream takes the data: the names --rx, the wire and the report share. Which
// kind takes which, and what each does, are the kinds' rows (paths/transport_ops.hpp's RxModeRow).
enum class RxMode { copy, zerocopy, splice, trunc, mmsg, gro };

struct TransportInfo {
    Transport id;
    const char* name;
    const char* summary;  // -T's help line
    TransportKind kind;
    unsigned tests;  // bit(Workload) of each test it runs
    // Why it runs no message test it lacks (after "rr over NAME is not offered: "); nullptr: a bulk sender path.
    const char* no_message_tests = nullptr;
    unsigned buffers = 0;          // bit(MemoryKind) of the memory its loops hand the kernel or the NIC (stream tests)
    unsigned message_buffers = 0;  // bit(MemoryKind) of the memory its rr loops take
    bool gpu_direct = false;       // the NIC can DMA GPU memory itself (GPUDirect RDMA: a dmabuf memory region)
    SendBuffer send_buffer = SendBuffer::message;
    bool send_batch = false;   // --batch N: msgrate hands N messages to one call (sendmmsg)
    bool queue_pairs = false;  // its threads post work requests on QPs of ours: --qps, --postlist, --thread-domains
    RdmaOp rdma_op = RdmaOp::none;  // rsocket and verbs rows: how the data reaches the receiver
    // Datagrams, each numbered (UDP): the receiver counts what was lost, so the two sides' counts add up
    // instead of being equal; its own rules (paths/udp_rules.hpp) and report (its kind block, protocol/udp_info.hpp).
    bool datagrams = false;
    // --flows N: a stream thread serves N connections through one epoll with send()/recv() copies
    // (tcp/tcp_flows.hpp; paths/flow_rules.hpp has the rest of its rules).
    bool flows = false;
    bool gso = false;  // one call carries many datagrams, cut at --gso-size (UDP_SEGMENT)
    // Its data connections are kernel TCP sockets: -C, --fq-rate, --tos and --bind-dev set them, and TCP_INFO
    // reads them.
    bool tcp_sockets = false;
    // Its calls are a TCP byte stream's (MPTCP's and TLS's too): a message test counts the kernel's data segments
    // per message (TCP_INFO) and speaks of send()/recv() calls; a kind that counts its own (RDMA's posts, UDP's
    // datagrams) says how in its report block.
    bool tcp_segments = false;
    TlsCrypto tls = TlsCrypto::none;  // TLS rows: who encrypts (--tls-version, --tls-cipher; --tls-offload: kernel)
    // The protocol its stream sockets are opened with (socket()'s third argument; 0: the family's TCP).
    int socket_protocol = 0;
    uint32_t stream_size = 0;     // -m for stream and maerts when not given (0: 1 MiB)
    uint32_t msgrate_size = 0;    // -m for msgrate when not given (0: 2 B)
    const char* needs = nullptr;  // what the build lacks when it is not built in (nullptr: always built)
    bool built = true;            // false: known, but this build lacks what it needs
    // The copy path of its family, which zcperf survey sets it against at each size (udp for UDP's rows,
    // rsocket for rsocket's, tcp for the others; a copy path's own name: it is the reference).
    const char* copy_path = "tcp";
};

const std::vector<TransportInfo>& transport_table();
const TransportInfo& transport_info(Transport t);
std::vector<std::string> available_transports();  // those built in
bool transport_built(Transport t);                // false: known, but this build lacks what it needs
// Throws std::invalid_argument listing the transports built in when the name is unknown, or
// naming what the build lacks for a known one that is not built in.
Transport transport_from_name(std::string_view name);
const char* transport_name(Transport t);
// What a row lacks in this build and how to get it ("" when built).
std::string not_built_reason(const TransportInfo& t);
// -T's help: one line per transport, its name and summary, and what the build lacks for the others.
std::string transport_help();
// The names of the rows that pass `keep`, comma-separated ("tcp, rsocket, rdma-write"), for messages.
template <class Keep>
std::string transport_names_where(Keep keep) {
    std::string out;
    for (const auto& t : transport_table())
        if (t.built && keep(t)) out += (out.empty() ? "" : ", ") + std::string(t.name);
    return out;
}

const char* rx_mode_name(RxMode m);
RxMode rx_mode_from_name(std::string_view name);  // throws std::invalid_argument listing the modes

}  // namespace zc
