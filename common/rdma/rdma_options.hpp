#pragma once
// The RDMA kinds' parameters (core/kind_params.hpp): the test's knobs, shared by both sides, and
// each side's device, sent to the server with its half by their field tables (kind_params_wire.hpp). Plain
// data with no rdma-core types, so the protocol builds without rdma-core. The rows and rules that set and
// check them are rdma/rdma_params.cpp's.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "core/kind_params.hpp"
#include "protocol/run_spec.hpp"
#include "protocol/wire_range.hpp"

namespace zc {

// How an RDMA row's data reaches the receiver: the one thing that tells apart the rows of the rsocket kind
// and of the verbs kind. Its tables and loops read it with rdma_op_of (rdma_kind.cpp's rows).
// send: two-sided, into buffers the receiver provides (rsend; verbs SEND into posted receives);
// write: one-sided, into the receiver's registered ring (riowrite; RDMA WRITE), arrivals announced apart;
// read: one-sided, the receiver pulls from the sender's registered buffer (RDMA READ).
enum class RdmaOp { send, write, read };

RdmaOp rdma_op_of(const TransportInfo& row);  // a row of the rdma kind
// The rdma kind's rows and their tables (a row's `table`): rsockets' (rsocket_ops.cpp) and the verbs' (verbs_ops.cpp),
// whose threads post work requests on QPs of ours (--qps, --postlist, --thread-domains).
enum : uint8_t { kRsocketTable = 0, kVerbsTable = 1 };
bool rdma_row(const TransportInfo& row);
bool verbs_row(const TransportInfo& row);

// Busy-poll the CQ (user time) or sleep on its completion channel; auto: see effective_cq_mode.
enum class CqMode { auto_, poll, event };

struct RdmaOptions {
    CqMode cq_mode = CqMode::auto_;
    uint32_t tx_depth = 128;   // send-queue entries per QP, and the window of messages in flight per QP
    uint32_t postlist = 1;     // work requests chained per ibv_post_send
    uint32_t inline_size = 0;  // --inline: bytes a send may carry inline (0 = never; messages larger go by DMA)
    uint32_t qps = 1;          // queue pairs per stream
    // --qps-per-context K: streams (threads) whose QPs share one device context and PD that zcperf
    // opens itself (ibv_open_device per K streams); 0 = every stream on rdma_cm's shared context
    // with a PD of its own (the default).
    uint32_t qps_per_context = 0;
    // --thread-domains: each stream (thread) allocates a thread domain (ibv_alloc_td) and a parent
    // domain over its PD (ibv_alloc_parent_domain) and makes its CQ and QPs in it, so the provider
    // may give them a doorbell register of their own and drop their locks (mlx5). Where the provider
    // has none it is an error naming the provider and the call, never a silent run without them.
    bool thread_domains = false;
};

// One side's: the RDMA device its data must use (--rdma-dev LOCAL,REMOTE; "" = the one the route goes through).
struct RdmaSideParams {
    std::string device;
};

// Their keys in TestParams::kind_params and SideSpec::kind_params.
inline constexpr KindParamsKey<RdmaOptions> kRdmaParams{"rdma"};
inline constexpr KindParamsKey<RdmaSideParams> kRdmaSideParams{"rdma-side"};

// A test's parameters, and a side's device ("" the route's), as the RDMA code reads them (at set-up).
inline const RdmaOptions& rdma_params(const TestParams& p) { return p.kind_params.get(kRdmaParams); }
inline const std::string& rdma_device_wanted(const SideSpec& side) {
    return side.kind_params.get(kRdmaSideParams).device;
}

inline constexpr uint32_t kMaxTxDepth = 8192;
inline constexpr uint32_t kMaxPostlist = 1024;
inline constexpr uint32_t kMaxInline = 1024;
inline constexpr uint32_t kMaxQpsPerStream = 64;
inline constexpr uint32_t kMaxQpsPerContext = 1024;

const char* cq_mode_name(CqMode m);
// What a side runs. auto: the passive side of a one-sided transfer (rdma-write's receiver,
// rdma-read's source) sleeps on events: it only hands back credits or waits for the end, and a
// busy-polling core there would both hide the one-sided CPU saving and, where the NIC is software
// (Soft-RoCE), take the CPU that moves the data; every other side polls, as perftest's do, except
// a stream (stream, maerts) over a software device (rxe, siw), where it sleeps too: there the
// transfer itself runs in the kernel on the host's CPUs, and a polling thread takes them from it
// (two-guest lab, rdma-write 64K: polling sender 0.13 Gb/s at 58-78 us/KB of its own CPU, sleeping
// 0.20 Gb/s at 2.2; docs/lab.md). rr and msgrate keep polling: there each completion's latency is the
// figure (rr's both sides: each writes, and both must see arrivals the same way; the caller decides
// who is passive).
CqMode effective_cq_mode(CqMode asked, bool passive_side, bool software_device_stream = false);
// A provider (provider_name()) that is software (rxe, siw): its transfers run on the host's CPUs, in the kernel.
inline bool software_provider(const std::string& provider) { return provider == "rxe" || provider == "siw"; }
CqMode cq_mode_from_name(const std::string& name);  // throws std::invalid_argument

// Throws std::invalid_argument naming the bad option (tx-depth 0, postlist over tx-depth, ...).
void check_rdma_options(const RdmaOptions& o);

// The range kRdmaFields accepts for a number (--tx-depth, --postlist...), for zcperf's option rows.
WireRange<uint32_t> wire_range(uint32_t RdmaOptions::*m);
struct KindParamsWire;
std::span<const KindParamsWire* const> rdma_params_wires();  // its field tables, for its description

// The rows that take them: rsockets and verbs (their rdma_op). rdma_options.cpp registers their wire halves
// (kind_params_wire.hpp: absent fields keep their defaults, present ones are range-checked), so whatever decodes
// a setup message with this file (zcserver, the fuzz target) reads them.
bool takes_rdma_params(const TransportInfo& row);

}  // namespace zc
