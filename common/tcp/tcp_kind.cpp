// The tcp kind: its rows (kernel TCP sockets; the senders differ, any receiver meets any sender: --rx) and
// its report block. tcp is the first row: -T's default and the copy path its family is measured against.
#include "core/kind_description.hpp"
#include "tcp/tcp_report.hpp"
#include "tcp/tcp_params.hpp"

namespace zc {

namespace {

constexpr TransportInfo kRows[] = {
    {.name = "tcp",
     .summary = "TCP with copies: send() and recv() through the socket buffers",
     .tests = kAllTests | kConnectionTests,
     .batch_tests = bit(Workload::msgrate),  // sendmmsg
     .buffers = kAnyMemory,
     .message_buffers = kAnyMemory,
     .tcp_sockets = true,
     .tcp_segments = true},
    {.name = "tcp-sendfile",
     .summary = "TCP, sender uses sendfile() from a memfd (netperf TCP_SENDFILE, iperf3 -Z)",
     .tests = kStreams,
     .buffers = kHost,
     .send_buffer = SendBuffer::file,
     .tcp_sockets = true,
     .tcp_segments = true},
    {.name = "tcp-msgzc",
     .summary = "TCP, sender uses send(MSG_ZEROCOPY); completions and kernel copies counted",
     .tests = kStreams,
     .buffers = kHost,
     .send_buffer = SendBuffer::zc_ring,
     .tcp_sockets = true,
     .tcp_segments = true},
    {.name = "tcp-uringzc",
     .summary = "TCP, sender uses io_uring SEND_ZC with usage reports",
     .tests = kStreams,
     .buffers = kHost,
     .send_buffer = SendBuffer::zc_ring,
     .tcp_sockets = true,
     .tcp_segments = true}};

}  // namespace

extern const KindDescription kind_description_tcp;
constexpr KindDescription kind_description_tcp{
    .name = "tcp",
    .rank = 0,
    .rows = kRows,
    .block = tcp_block_type,
    .params = tcp_params_wires,
};

}  // namespace zc
