// The mptcp kind: the tcp kind's socket loops on IPPROTO_MPTCP sockets, each subflow reported (its block).
#include "core/kind_description.hpp"
#include "mptcp/mptcp_params.hpp"
#include "mptcp/mptcp_report.hpp"

namespace zc {

namespace {

constexpr TransportInfo kRows[] = {
    {.name = "mptcp",
     .summary = "Multipath TCP (IPPROTO_MPTCP): send() and recv(); each subflow's addresses and bytes reported",
     .tests = kStreams | bit(Workload::rr) | bit(Workload::crr),
     .buffers = kHost,
     .message_buffers = kHost,
     .tcp_segments = true},
    {.name = "mptcp-sendfile",
     .summary = "Multipath TCP, sender uses sendfile() from a memfd; each subflow reported",
     .tests = kStreams,
     .buffers = kHost,
     .send_buffer = SendBuffer::file,
     .tcp_segments = true}};

}  // namespace

extern const KindDescription kind_description_mptcp;
constexpr KindDescription kind_description_mptcp{
    .name = "mptcp",
    .rows = kRows,
    .block = mptcp_block_type,
    .params = mptcp_params_wires,
};

}  // namespace zc
