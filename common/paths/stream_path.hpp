#pragma once
// The one path factory: one stream's loop for whichever test, transport and role, built on its data
// connection before the measured interval and run once (one virtual call per stream, never per
// message). The transport's operations table (transport_ops.hpp) builds it; which of its makers runs
// (stream sender, stream receiver, message test) is decided here and nowhere else.
#include <any>
#include <span>

#include "core/data_connection.hpp"
#include "core/stream_loop.hpp"
#include "measure/latency_histogram.hpp"
#include "kind/transport_ops.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

// Builds this side's loop for one stream (in place: paths own kernel objects). `rtt` receives an rr
// initiator's round trips (the caller keeps it, so it outlives the path). Throws std::runtime_error
// naming what the half cannot run (spec_problem) or what is missing here.
void make_stream_path(StreamLoop& path, const HalfSpec& half, Role role, DataConnection& conn, LatencyHistogram& rtt);

// What ran, read back after the run: the path's name in the report (the sender's transport, a TCP
// receiver's --rx mode).
std::string path_name(const HalfSpec& half, Role role);
// The kernel's settings in force on a side's first connection (socket buffers, the receive low-water mark), into its
// result.
void read_back_settings(const HalfSpec& half, Role role, const DataConnection& conn, SideResult& r);
// The kind's reading of one stream's connection now (TransportOps::stream_reading; empty where it has none).
std::any kind_reading_of(const HalfSpec& half, const DataConnection& conn);
// The same at an --interval edge: empty where the kind makes no interval block (nothing would read it; mptcp's
// reading is a host-wide count for its end-of-run block).
std::any interval_reading_of(const HalfSpec& half, const DataConnection& conn);
// --interval: the kind's block of one interval from its streams' readings at its two edges
// (TransportOps::interval_block).
void read_interval_block(const HalfSpec& half, std::span<const std::any> before, std::span<const std::any> after,
                         double interval_s, KindBlocks& blocks);
// The kind's own report block, into r.kinds (nothing where the kind has none): at the end, connections open.
void read_kind_block(const HalfSpec& half, Role role, std::span<const KindStream> streams, SideResult& r);
// The kind's own counts of a stream's loop as it ended (empty where the kind keeps none): TransportOps::loop_counts.
std::any kind_counts_of(Transport t, const StreamLoop& path);
// crr, cc initiators: socket() to connected, per transaction (empty for every other loop).
LatencyHistogram connect_latency_of(Transport t, const StreamLoop& path);

}  // namespace zc
