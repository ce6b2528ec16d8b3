#pragma once
// What a transport kind does, as one table of functions (neper's neper_fn, iperf3's struct protocol):
// listen, accept and connect its data connections, build a stream's loop for each test, and read back
// what ran. A transport's row (core/transport_registry.hpp) names its kind and which of the kind's tables
// builds it; transport_ops() finds that table in the kind's module (kind/kind_module.hpp). Everything above this
// (DataListener, connect_data_streams, the path factory, the side runner) calls through the table and names no
// transport. The functions run at set-up and once per stream; the hot loop is inside the loop class they build
// (core/stream_loop.hpp).
//
// Adding a kind: docs/structure.md, "Add a kind".
#include <any>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/data_connection.hpp"
#include "core/stream_loop.hpp"
#include "core/transport_registry.hpp"
#include "measure/latency_histogram.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// The server's side of set-up: one kind's listener for one test's data connections, made by its
// table's listen. DataListener (data_setup.hpp) holds one, whatever the kind, and names none.
class KindListener {
public:
    virtual ~KindListener() = default;
    virtual uint16_t port() const = 0;
    // True: connections join this listener after accept (a multipath kind's later subflows, to this port:
    // with no listener the kernel answers their SYN with a reset), so the test keeps it open until its
    // end. False: the test closes it once its streams are in.
    virtual bool keeps_listening() const { return false; }
    // The half's streams, each having presented the token, before the deadline. Throws
    // std::runtime_error when fewer arrive, or kStoppedBeforeStart when `stopped` is set first.
    virtual std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                               const std::atomic<bool>& stopped) = 0;
};

// Where the client connects: `host` as the user gave it (a socket may resolve a name), `address` the
// numeric address the control connection reached (rdma_cm connects by address, never by name).
struct PeerAddress {
    std::string host;
    std::string address;
    uint16_t port = 0;
};

// One receive mode of a kind (--rx NAME, stream and maerts): the kind's receiver builds its loop from it.
// copy (recv into the stream's buffer) is every kind's; a kind lists its rows when it has more.
struct RxModeRow {
    RxMode mode;      // its name is rx_mode_name(mode), the one the wire and the report carry
    const char* how;  // one line for --rx's help: the call it makes ("recvmmsg, 64 per call")
    // Whether the data lands in the stream's buffer; one that maps, splices or drops it takes host memory only.
    bool lands_in_buffer = true;
    unsigned tests = kStreams;  // bit(Workload) of the tests whose receiver it serves (a kind's msgrate's too)
};

// One stream of a side as its kind's block reads it at the end of the run: its connection (still open),
// the counts every loop keeps (bytes, calls, -b's pacing), its kind's own counts of the loop (what
// loop_counts read as the loop ended) and the kind's reading of the stream at the start of the measured
// interval (stream_reading's); each empty where the kind has none.
struct KindStream {
    const DataConnection* conn;
    const StreamCounters* counters;
    const std::any* kind_counts;
    const std::any* at_start;
};

struct TransportOps {
    // Server: listens on bind_address (port 0: any) for the half's streams. Throws std::runtime_error
    // naming what is missing (an RDMA device on the address, ...).
    std::unique_ptr<KindListener> (*listen)(const HalfSpec& half, Role role, const std::string& bind_address);
    // Client: the half's streams, each presenting the token, every wait bounded.
    std::vector<DataConnection> (*connect)(const HalfSpec& half, Role role, const PeerAddress& peer, uint64_t token);
    // One stream's loop on its connection: a stream test's sender or receiver, or a message test's
    // side (rr: `rtt` gets the initiator's round trips). spec_problem(half, role) has passed. make_exchange
    // may be nullptr when none of the kind's rows runs a message test (tests/unit/test_transport_names.cpp checks).
    void (*make_send)(StreamLoop& loop, const HalfSpec& half, DataConnection& conn);
    void (*make_recv)(StreamLoop& loop, const HalfSpec& half, DataConnection& conn);
    void (*make_exchange)(StreamLoop& loop, const HalfSpec& half, Role role, DataConnection& conn,
                          LatencyHistogram& rtt) = nullptr;
    // Read back what ran (nullptr: the defaults): the numeric local address the data leaves from ("" when
    // unknown; default ""), the path's name in the report (default the row's name), and the kernel's settings
    // in force on the side's first connection (socket buffers, the receive low-water mark) into the side's
    // result (default none: connections that are not kernel sockets).
    std::string (*local_address)(const DataConnection& conn) = nullptr;
    std::string (*path_name)(const HalfSpec& half, Role role) = nullptr;
    void (*settings_in_force)(const HalfSpec& half, Role role, const DataConnection& conn, SideResult& r) = nullptr;
    // The bytes of memory one stream of this side allocates (the server checks it against its limit).
    uint64_t (*buffer_bytes)(const HalfSpec& half, Role role);
    // Optional read-backs (nullptr: the kind has none). stream_reading: the kind's view of one stream's
    // connection now (the TCP family's: TCP_INFO), a value of its own type (empty: nothing to read for
    // this half), read at the start (kind_block measures the interval from it) and at each --interval
    // edge, from outside the stream's thread beside the running loop (one getsockopt, safe there).
    // connect_latency: crr and cc's initiator, socket() to connected per transaction.
    std::any (*stream_reading)(const HalfSpec& half, const DataConnection& conn) = nullptr;
    // --interval: the kind's block of one interval (into `blocks` by its key; nothing where it has none)
    // from its streams' readings at the interval's two edges (stream order), from the sampler's thread.
    void (*interval_block)(std::span<const std::any> before, std::span<const std::any> after, double interval_s,
                           KindBlocks& blocks) = nullptr;
    LatencyHistogram (*connect_latency)(const StreamLoop& loop) = nullptr;
    // The kind's own report block (protocol/kind_block.hpp), read once at the end of the side's run from
    // its streams (stream order) and its result so far, into r.kinds.
    void (*kind_block)(const HalfSpec& half, Role role, std::span<const KindStream> streams, SideResult& r) = nullptr;
    // The kind's own counts of one stream's loop, read in the stream's thread as its loop ends (the loop
    // goes with the thread), for kind_block: a value of the kind's own type (UDP's UdpCounts; an rsocket
    // loop's ring registration and credit waits), made once per stream, never inside the loop.
    std::any (*loop_counts)(const StreamLoop& loop) = nullptr;
    // The kind's own rules over a half, its parameters' (core/kind_params.hpp) among them: why it cannot run
    // ("" it can), asked by spec_problem() after the rules every kind shares. nullptr: none of its own.
    std::string (*kind_problem)(const HalfSpec& half, Role role) = nullptr;
    // msgrate: messages one post or call carries on this side (the RDMA verbs' --postlist), for the report's
    // words on how messages were posted; nullptr: --batch's (sendmmsg).
    uint32_t (*messages_per_call)(const TestParams& params) = nullptr;
    // Its receive modes (empty: copy only), in the order --rx's help lists them.
    std::span<const RxModeRow> rx_modes{};
};

// The table of the transport's kind (its registry row says which).
const TransportOps& transport_ops(Transport t);

// The row's receive mode `mode` (copy: every kind's), or nullptr when its kind has none of that name.
const RxModeRow* rx_mode_row(const TransportInfo& t, RxMode mode);
// --rx's help and choices, from the kinds' rows: each kind that has rows, its modes with their help lines;
// and each mode's name once, in the rows' order.
std::string rx_mode_help();
std::vector<std::string> rx_mode_choices();
// "" when the row's kind takes --rx half.rx; else why, naming the modes it takes and the rows that take this one.
std::string rx_mode_problem(const HalfSpec& half);

}  // namespace zc
