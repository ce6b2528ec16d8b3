#pragma once
// Which data paths this build has, and what each can do: one row per transport. The capabilities are
// data in the row (UCX perftest's test-type table is the model), read by one check, spec_problem()
// (kind/spec_rules.hpp), on both zcperf and zcserver; the row's kind finds the operations table that
// connects it and builds its loops (kind/transport_ops.hpp). -T's help and --version list the rows.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/workload.hpp"
#include "core/buffer_spec.hpp"

namespace zc {

// A transport: its row's place in transport_table(), which lists the kinds' rows (core/kind_description.hpp)
// in the kinds' order. Transport{} is the first row, the tcp kind's copy path: -T's default and the
// reference of its family. A row is found by its name (transport_from_name), never by a number.
enum class Transport : uint16_t {};

// What one stream's sender allocates (buffer_bytes, spec_rules.hpp): one message, a ring of messages awaiting
// zero-copy completions, or a memfd the kernel sends from.
enum class SendBuffer { message, zc_ring, file };

// Bit sets of test kinds and memory kinds, for the table's rows.
constexpr unsigned bit(Workload t) { return 1u << static_cast<unsigned>(t); }
constexpr unsigned bit(MemoryKind m) { return 1u << static_cast<unsigned>(m); }

// The rows' usual sets.
inline constexpr unsigned kStreams = bit(Workload::stream) | bit(Workload::maerts);
inline constexpr unsigned kAllTests = kStreams | bit(Workload::rr) | bit(Workload::msgrate);
// A connection per transaction (crr, cc): the kernel's connect/accept is what they measure.
inline constexpr unsigned kConnectionTests = bit(Workload::crr) | bit(Workload::cc);
inline constexpr unsigned kHost = bit(MemoryKind::host);
inline constexpr unsigned kGpuLike = bit(MemoryKind::cuda) | bit(MemoryKind::sim_gpu);
inline constexpr unsigned kAnyMemory = kHost | bit(MemoryKind::pinned) | kGpuLike;

// How the receiving side of a stream takes the data: the names --rx, the wire and the report share. Which
// kind takes which, and what each does, are the kinds' rows (kind/transport_ops.hpp's RxModeRow).
enum class RxMode { copy, zerocopy, splice, trunc, mmsg, gro };

struct TransportInfo {
    Transport id{};  // set by transport_table()
    const char* name;
    const char* summary;         // -T's help line
    const char* kind = nullptr;  // its kind's name (its folder), set by transport_table()
    uint8_t table = 0;           // which of its kind's operations tables builds it (kind/kind_module.hpp)
    unsigned tests;              // bit(Workload) of each test it runs
    // bit(Workload) of the tests whose sender -b paces: every stream loop asks the stop rule, which paces
    // (core/stream_counters.hpp); a message loop keeps its own clock and would ignore it, unless its row says so.
    unsigned paced_tests = kStreams;
    // bit(Workload) of the tests whose sender takes --batch N: N messages handed to one call (sendmmsg).
    unsigned batch_tests = 0;
    // Why it runs no message test it lacks (after "rr over NAME is not offered: "); nullptr: a bulk sender path.
    const char* no_message_tests = nullptr;
    unsigned buffers = 0;          // bit(MemoryKind) of the memory its loops hand the kernel or the NIC (stream tests)
    unsigned message_buffers = 0;  // bit(MemoryKind) of the memory its rr loops take
    bool gpu_direct = false;       // the NIC can DMA GPU memory itself (GPUDirect RDMA: a dmabuf memory region)
    SendBuffer send_buffer = SendBuffer::message;
    // Its data connections are kernel TCP sockets: -C, --fq-rate, --tos and --bind-dev set them, and TCP_INFO
    // reads them.
    bool tcp_sockets = false;
    // Its calls are a TCP byte stream's (MPTCP's and TLS's too): a message test counts the kernel's data segments
    // per message (TCP_INFO) and speaks of send()/recv() calls; a kind that counts its own (RDMA's posts, UDP's
    // datagrams) says how in its report block.
    bool tcp_segments = false;
    uint32_t stream_size = 0;     // -m for stream and maerts when not given (0: 1 MiB)
    uint32_t msgrate_size = 0;    // -m for msgrate when not given (0: 2 B)
    const char* needs = nullptr;  // what the build lacks when it is not built in (nullptr: always built)
    bool built = true;            // false: known, but this build lacks what it needs
    // The copy path of its family, which zcperf survey sets it against at each size (udp for UDP's rows,
    // rsocket for rsocket's; a copy path's own name: it is the reference). nullptr: the first row's
    // (Transport{}, the rank-0 kind's copy path), which transport_table() fills in.
    const char* copy_path = nullptr;
};

const std::vector<TransportInfo>& transport_table();
const TransportInfo& transport_info(Transport t);
std::vector<std::string> available_transports();  // those built in
bool transport_built(Transport t);                // false: known, but this build lacks what it needs
// Throws std::invalid_argument listing the transports built in when the name is unknown, or
// naming what the build lacks for a known one that is not built in.
Transport transport_from_name(std::string_view name);
const char* transport_name(Transport t);
// The row of that name, built in or not (tests, and a kind naming its own rows); std::logic_error when none is.
Transport transport_named(std::string_view name);
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

// The rows help texts name in their examples, read from the table so that they are rows of this build: the
// reference copy path (Transport{}), its family's first zero-copy sender (a ring awaiting completions) and its
// first sender from a file; a family without one names the copy path.
struct ExampleRows {
    const char* copy;
    const char* zerocopy;
    const char* file;
};
const ExampleRows& example_rows();

const char* rx_mode_name(RxMode m);
RxMode rx_mode_from_name(std::string_view name);  // throws std::invalid_argument listing the modes

}  // namespace zc
