#pragma once
// One test, both sides: what the CLI builds, and the half of it the server receives.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/workload.hpp"
#include "protocol/wire_range.hpp"
#include "core/buffer_spec.hpp"
#include "core/gpu_path.hpp"
#include "core/kind_params.hpp"
#include "core/transport_registry.hpp"
#include "measure/percentiles.hpp"

namespace zc {

// Limits the server enforces on any spec it receives.
inline constexpr uint64_t kMaxMessageSize = 1ull << 30;
inline constexpr int kMaxStreams = 256;
inline constexpr double kMaxDurationS = 24 * 3600;
inline constexpr uint64_t kMaxSocketBuffer = 1ull << 30;
inline constexpr uint64_t kMaxAlignment = 1ull << 21;
inline constexpr uint32_t kMaxBatch = 1024;  // msgrate: messages per send call (sendmmsg's UIO_MAXIOV)
// Data connections a side opens: each side's result lists every connection's bytes, in a reply of at most 4 MiB
// (TCP's -P x --flows, tcp/tcp_params.hpp).
inline constexpr uint64_t kMaxDataConnections = 100000;

struct SideSpec {
    std::vector<int> cpus;              // data threads' CPUs, round-robin over the streams; empty = not pinned
    uint64_t socket_buffer = 0;         // SO_SNDBUF/SO_RCVBUF; 0 = the kernel's autotuning
    int mem_node = -1;                  // NUMA node of the data buffers; -1 = wherever the kernel puts them
    std::vector<int> irq_cpus;          // CPUs for the data device's IRQs during the test; empty = untouched
    BufferSpec buffer{};                // where the data buffers live: host, pinned, cuda:N (--buffer)
    GpuPath gpu_path = GpuPath::auto_;  // how GPU memory meets the network (--gpu-path)
    KindParams kind_params;             // a kind's own, this side's (rdma's device: --rdma-dev LOCAL,REMOTE)
};

// The parameters both sides share: what the client's spec and the server's half have in common,
// declared once. Their wire names, ranges and what an older peer's silence means are in one table
// (kTestParamFields, run_spec.cpp); the defaults here are zcperf's when an option is not given.
struct TestParams {
    Transport transport{};  // the table's first row: tcp
    Workload test = Workload::stream;
    uint64_t message_size = 1 << 20;
    double duration_s = 10;
    uint64_t total_bytes = 0;  // > 0: move exactly this many bytes instead of running for duration_s
    int streams = 1;
    uint64_t alignment = 4096;    // buffer alignment; page-sized by default (netperf's 8 halves its speed)
    RxMode rx = RxMode::copy;     // how the receiving side takes the data
    uint32_t batch = 1;           // msgrate: messages handed to the kernel per call (TCP: sendmmsg)
    double interval_s = 0;        // --interval: both sides sample every this many seconds; 0 = off
    int explain_hz = 0;           // --explain: each side samples its CPUs this often; 0 = off
    bool explain_stacks = false;  // --explain-stacks: each side sends its folded stacks back
    // Another test on the same host: how long this one may wait for the IRQs that test holds
    // (--irq-wait), and for an --exclusive zcserver to end that test (--server-wait); 0 = refused at once.
    double irq_wait_s = 0;
    double server_wait_s = 0;
    uint64_t bitrate = 0;  // -b: the sender's rate in bits/s; 0 = as fast as it can
    // The client's own, not on the wire (the rr responder records no latency): --percentiles, which the
    // report reads from the round-trip histogram, and --samples, every transaction kept in memory.
    std::vector<double> percentiles = kDefaultPercentiles;
    bool keep_samples = false;
    // A transport kind's own parameters (core/kind_params.hpp), set by its option rows: rdma's --tx-depth,
    // --postlist ..., udp's --gso-size, tcp's --flows and -C (tcp/tcp_params.hpp); sent to the server through the
    // kind's field table where its rows take them.
    KindParams kind_params;
    // A kind's own client-side texts, by name, as the command line gave them (a handshake's choices): read by
    // the kind's connect on the client, never on the wire (its server side takes whatever its client offers).
    std::map<std::string, std::string> kind_options;
};
inline constexpr double kMaxWaitS = 3600;

// --under-load, the client's own and never on the wire: N stream connections beside a
// transaction test, run as an ordinary stream test of their own on a second control connection to the
// same server (client/under_load.hpp), so a server needs nothing new to serve it.
struct UnderLoad {
    bool asked = false;                        // --under-load given (a sweep's 0 is reported as "alone")
    int streams = 0;                           // load connections; 0: the test runs alone
    std::optional<Transport> transport;        // the load's (N:TRANSPORT); none: the test's own
    std::vector<int> local_cpus, remote_cpus;  // --load-cpu LOCAL[,REMOTE]; empty: not pinned
};

// The whole test: the shared parameters plus both sides' placement.
struct TestSpec : TestParams {
    SideSpec local, remote;
    UnderLoad load;
};

// The server's half: everything but the client's own placement.
struct HalfSpec : TestParams {
    SideSpec side;
};

// One side's half of a test: the shared parameters plus that side's placement. The server gets
// the remote half over the wire; the client runs its own side from the local half.
// It keeps only the kind parameters the test's transport takes (kind_params_wire.hpp): -T tcp,udp-gso's tcp
// test has no GSO size, and its udp test none of a verbs load's device.
HalfSpec side_half(const TestSpec& spec, const SideSpec& side);
inline HalfSpec server_half(const TestSpec& spec) { return side_half(spec, spec.remote); }

// Bytes for stream i of n when a total is split (the remainder goes to the first streams).
uint64_t stream_share(uint64_t total, int streams, int i);

nlohmann::json to_json(const HalfSpec& s);
// Decodes and range-checks; throws ProtocolError naming the bad field.
HalfSpec half_spec_from_json(const nlohmann::json& j);

// The range a number field's line in the wire table accepts (kTestParamFields, kSideFields), for
// zcperf's option rows (client/cli.cpp): the command line refuses what the server would.
WireRange<uint64_t> wire_range(uint64_t TestParams::*m);
WireRange<uint32_t> wire_range(uint32_t TestParams::*m);
WireRange<int> wire_range(int TestParams::*m);
WireRange<double> wire_range(double TestParams::*m);
WireRange<uint64_t> wire_range(uint64_t SideSpec::*m);
WireRange<int> wire_range(int SideSpec::*m);

}  // namespace zc
