// The udp kind: its rows (every datagram numbered, loss counted by the receiver), its report block and
// its parameter (--gso-size).
#include <string_view>

#include "core/kind_description.hpp"
#include "udp/udp_info.hpp"
#include "udp/udp_params.hpp"

namespace zc {

namespace {

constexpr TransportInfo kRows[] = {
    {.name = "udp",
     .summary = "UDP: one datagram per send() (--batch N: sendmmsg); loss, reordering, duplicates and jitter "
                "counted by the receiver from each datagram's sequence number",
     .tests = kAllTests,
     .paced_tests = kStreams | bit(Workload::msgrate),  // its msgrate sender asks the stop rule too
     .batch_tests = kStreams | bit(Workload::msgrate),  // sendmmsg
     .buffers = kHost,
     .message_buffers = kHost,
     .stream_size = 1472,  // a datagram that fits an Ethernet frame
     .msgrate_size = 16,   // the sequence header alone
     .copy_path = "udp"},
    {.name = "udp-gso",
     .summary = "UDP GSO (UDP_SEGMENT): one send() carries up to 64 datagrams of --gso-size, cut by the kernel or "
                "the NIC",
     .tests = kStreams,
     .no_message_tests = "GSO cuts one large buffer into many datagrams per call, a bulk sender's trade. Use -T "
                         "udp (with --batch N for sendmmsg)",
     .buffers = kHost,
     .stream_size = 44 * 1472,  // 44 Ethernet-sized segments per call, under UDP's 65507
     .copy_path = "udp"},
    {.name = "udp-msgzc",
     .summary = "UDP GSO with MSG_ZEROCOPY: the kernel sends from our pages; completions and its copies counted",
     .tests = kStreams,
     .no_message_tests = "MSG_ZEROCOPY pays off on large GSO buffers; a message test's small datagrams would only "
                         "add completions. Use -T udp",
     .buffers = kHost,
     .send_buffer = SendBuffer::zc_ring,  // MSG_ZEROCOPY: a slot is reused after its completion
     .stream_size = 44 * 1472,
     .copy_path = "udp"}};

}  // namespace

bool gso_row(const TransportInfo& row) {
    return row_of_kind(row, "udp") &&
           (std::string_view(row.name) == "udp-gso" || std::string_view(row.name) == "udp-msgzc");
}

extern const KindDescription kind_description_udp;
constexpr KindDescription kind_description_udp{
    .name = "udp",
    .rows = kRows,
    .block = udp_block_type,
    .params = udp_params_wires,
};

}  // namespace zc
