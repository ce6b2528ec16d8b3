#include "mptcp/mptcp_params.hpp"

#include <string_view>

#include "core/kind_description.hpp"
#include "protocol/kind_params_wire.hpp"
#include "tcp/tcp_params.hpp"

namespace zc {

namespace {

// From 1 MiB calls up, MPTCP's receiver is woken per segment, as iperf3's is: on a 2-CPU VM TCP's 256 KiB mark cost
// a quarter of the rate there (0.74x iperf3 --mptcp, 1.06x without it), while on a 16-core host either beat
// iperf3. Below, TCP's mark still spares the sender most wake-ups (256K on the 16-core host: 1.01x iperf3 with it,
// 0.90x without). docs/mptcp.md has the runs.
constexpr uint64_t kKernelFrom = 1 << 20;

constexpr const char* kMptcp = "mptcp";  // the kind's name, its wire half's key
bool mptcp_kind(const TransportInfo& row) { return row_of_kind(row, kMptcp); }
void no_fields(const KindParams&, nlohmann::json&) {}
void no_fields_read(const nlohmann::json&, KindParams&) {}
void resolve(const TestParams& test, KindParams& params) {
    TcpParams& p = params.set(kTcpParams);
    if (!p.rcv_lowat) p.rcv_lowat = mptcp_rcv_lowat(test.message_size);
}

const KindParamsWire kMptcpWire{
    .key = kMptcp, .takes = mptcp_kind, .encode = no_fields, .decode = no_fields_read, .resolve = resolve};
const KindParamsWire* const kMptcpWires[] = {&kMptcpWire};

}  // namespace

uint64_t mptcp_rcv_lowat(uint64_t message_size) { return message_size >= kKernelFrom ? 1 : kDefaultRcvLowat; }
std::span<const KindParamsWire* const> mptcp_params_wires() { return kMptcpWires; }

}  // namespace zc
