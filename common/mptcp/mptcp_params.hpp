#pragma once
// MPTCP's defaults for TCP's parameters (tcp/tcp_params.hpp): its streams run TCP's loops, but TCP's receive
// low-water mark is not what suits them. Chosen by bench/peers.sh --mptcp against iperf3 --mptcp (docs/mptcp.md).
#include <cstdint>
#include <span>

namespace zc {

struct KindParamsWire;  // protocol/kind_params_wire.hpp

// The SO_RCVLOWAT an MPTCP stream receiver sets when --rcvlowat is not given, for -m message_size (1: the kernel's).
uint64_t mptcp_rcv_lowat(uint64_t message_size);
// Its wire half: no fields of its own; its resolve sets TcpParams' mark for an MPTCP test before it is sent.
std::span<const KindParamsWire* const> mptcp_params_wires();  // for its description

}  // namespace zc
