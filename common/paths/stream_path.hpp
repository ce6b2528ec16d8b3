#pragma once
// The one path factory: one stream's loop for whichever test, transport and role, built on its data
// connection before the measured interval and run once (std::visit dispatches once per stream,
// never per message). Stream tests take a SendPath or a RecvPath (data_path.hpp), message tests an
// ExchangePath (exchange_path.hpp); which one is decided here and nowhere else.
#include "measure/latency_histogram.hpp"
#include "protocol/test_spec.hpp"
#include "core/data_connection.hpp"
#include "paths/data_path.hpp"
#include "paths/exchange_path.hpp"

namespace zc {

struct StreamPath {
    SendPath send;
    RecvPath recv;
    ExchangePath exchange;  // rr, msgrate: both directions or counted messages
};

// Builds this side's loop for one stream (construct in place: paths own kernel objects). `rtt`
// receives an rr initiator's round trips. Throws std::runtime_error naming what the half cannot run
// (spec_problem) or what is missing here.
void make_stream_path(StreamPath& path, const ServerSpec& half, Role role, DataConnection& conn, LatencyHistogram& rtt);

// The loop's user-space data buffer, for reading back where its pages are (nullptr: none).
const HostBuffer* buffer_of(const StreamPath& path);

StreamCounters run_stream_path(StreamPath& path, const StopRule& stop);

// What an RDMA path ran on and what registering its memory cost (empty for TCP).
RdmaInfo rdma_info_of(const DataConnection& conn, const StreamPath& path);

}  // namespace zc
