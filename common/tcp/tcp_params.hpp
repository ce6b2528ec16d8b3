#pragma once
// TCP's own parameters (core/kind_params.hpp): the test's (--uring-fixed, --rcvlowat, --flows, -C, --fq-rate, --tos,
// --crr-close) and each side's (--bind-dev), with their wire half, registered by tcp_params.cpp so whatever decodes
// a setup message with them (zcserver, the fuzz target) reads them. Their wire names and ranges are the ones the
// shared spec carried before they were TCP's: a peer of either age reads the other's setup message. The option rows
// are tcp_options.cpp's; the rules between them tcp_rules.cpp's.
#include <cstdint>
#include <span>
#include <string>

#include "tcp/crr_close.hpp"
#include "core/kind_params.hpp"
#include "protocol/run_spec.hpp"
#include "protocol/wire_range.hpp"

namespace zc {

inline constexpr int kMaxFlows = 65536;  // --flows: connections per stream (the open-file limit is checked too)
// Stream receivers over TCP ask the kernel to wake them only once this many bytes are queued
// (SO_RCVLOWAT). Each wake-up is paid by the CPU that delivers the data (the sender's, on loopback);
// at one wake-up per 64 KiB segment those cost a tenth of a loopback stream's throughput.
inline constexpr uint64_t kDefaultRcvLowat = 256 << 10;

struct TcpParams {
    bool uring_fixed = false;  // tcp-uringzc: registered buffers
    // Stream over TCP: the receiver's SO_RCVLOWAT (1 = the kernel's). 0: not given, the kind's default for the test's
    // size (a kind's KindParamsWire::resolve sets it before the half is sent; else kDefaultRcvLowat).
    uint64_t rcv_lowat = 0;
    int flows = 1;  // --flows: TCP connections per stream, served by the stream's thread over one epoll
    // The data sockets, both sides (tcp/tcp_tuning.hpp; each side reports what its sockets ran with):
    std::string congestion;              // -C: TCP_CONGESTION ("" = the kernel's default)
    uint64_t max_pacing_Bps = 0;         // --fq-rate: SO_MAX_PACING_RATE, bytes/s (0 = unlimited)
    int tos = -1;                        // --tos: IP_TOS / IPV6_TCLASS (-1 = untouched)
    CrrClose crr_close = CrrClose::rst;  // crr, cc: how the client closes each connection
};
inline constexpr KindParamsKey<TcpParams> kTcpParams{"tcp"};

// One side's: the client's data sockets' interface (--bind-dev, SO_BINDTODEVICE; "" = any).
struct TcpSideParams {
    std::string bind_dev;
};
inline constexpr KindParamsKey<TcpSideParams> kTcpSideParams{"tcp_side"};

inline const TcpParams& tcp_params(const TestParams& p) { return p.kind_params.get(kTcpParams); }
inline const TcpSideParams& tcp_side_params(const SideSpec& s) { return s.kind_params.get(kTcpSideParams); }
// The receive low-water mark a stream receiver sets: --rcvlowat, else what its kind chose, else TCP's default.
inline uint64_t rcv_lowat_of(const TestParams& p) {
    uint64_t v = tcp_params(p).rcv_lowat;
    return v ? v : kDefaultRcvLowat;
}

// Data connections a side opens or accepts: -P streams, each of --flows connections.
inline uint64_t data_connections(const TestParams& p) {
    return static_cast<uint64_t>(p.streams) * static_cast<uint64_t>(tcp_params(p).flows);
}
// "--flows 1000 x -P 2 (2000 connections)", for messages about them.
std::string flows_need(int flows, int streams);
inline std::string flows_need(const TestParams& p) { return flows_need(tcp_params(p).flows, p.streams); }

// The ranges the wire accepts, for the option rows (tcp_options.cpp): the command line refuses what the server would.
struct KindParamsWire;
std::span<const KindParamsWire* const> tcp_params_wires();  // its field tables, for its description
WireRange<uint64_t> wire_range(uint64_t TcpParams::*m);
WireRange<int> wire_range(int TcpParams::*m);

}  // namespace zc
