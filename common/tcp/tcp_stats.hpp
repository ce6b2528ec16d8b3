#pragma once
// What the kernel knows about one TCP connection (TCP_INFO), in named units, and the answer to
// "what limited this stream?" from two readings: the sender's chronographs tcpi_busy_time,
// tcpi_rwnd_limited and tcpi_sndbuf_limited (kernel 4.10+) say how long, in the interval, the
// connection had data to send, and how much of that it was held back by the receiver's window or
// by a full send buffer. Pure data and arithmetic here; tcp/tcp_info.cpp reads the socket.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace zc {

// Name lengths the kernel allows: TCP_CA_NAME_MAX (with its NUL) and IFNAMSIZ - 1.
inline constexpr size_t kMaxCongestionName = 16;
inline constexpr size_t kMaxInterfaceName = 15;

// The kernel's "no slow-start threshold yet" (TCP_INFINITE_SSTHRESH).
inline constexpr uint32_t kInfiniteSsthresh = 0x7fffffff;

struct TcpInfo {
    bool valid = false;       // false: not a TCP socket, or the read failed (every figure 0)
    bool has_chrono = false;  // the kernel filled busy/rwnd/sndbuf (4.10+)
    uint8_t ca_state = 0;     // 0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss
    uint32_t rtt_us = 0;      // smoothed RTT
    uint32_t rttvar_us = 0;   // its mean deviation
    uint32_t min_rtt_us = 0;
    uint32_t rto_us = 0;
    uint32_t snd_cwnd = 0;      // segments
    uint32_t snd_ssthresh = 0;  // segments (kInfiniteSsthresh: none yet)
    uint32_t snd_mss = 0;
    uint32_t rcv_space = 0;  // the receiver's autotuned window estimate (bytes)
    uint32_t snd_wnd = 0;    // the peer's advertised window (bytes; 0 before kernel 5.4)
    uint32_t unacked = 0, lost = 0;
    uint32_t total_retrans = 0;  // segments retransmitted over the connection's life
    uint32_t data_segs_out = 0, data_segs_in = 0;
    uint64_t pacing_rate_Bps = 0, max_pacing_rate_Bps = 0;  // max: ~0 when SO_MAX_PACING_RATE is unset
    uint64_t delivery_rate_Bps = 0;
    bool delivery_rate_app_limited = false;
    uint64_t busy_us = 0;            // had data in flight or queued (includes the two below)
    uint64_t rwnd_limited_us = 0;    // ... and could not send: the receiver's window was full
    uint64_t sndbuf_limited_us = 0;  // ... and could not send: the send buffer was too small
    uint64_t bytes_sent = 0, bytes_retrans = 0, bytes_acked = 0, bytes_received = 0;
};

// One stream's TCP over one interval (or the whole measured interval) between two readings of its
// socket: the state at the end, and what changed. Shares are of the interval's wall time, 0..1 (the
// kernel counts in jiffies, so a share is good to a few ms). The same figures in the result (per stream,
// whole test), in each --interval and on the wire (tcp/tcp_report.cpp's field table).
struct TcpSample {
    double interval_s = 0;
    bool has_chrono = false;  // the kernel keeps the sender's chronographs (4.10+): shares are meaningful
    // The state at the end.
    uint32_t rtt_us = 0, rttvar_us = 0, min_rtt_us = 0;
    uint32_t snd_cwnd = 0, snd_ssthresh = 0, snd_mss = 0;
    uint32_t snd_wnd = 0, rcv_space = 0;
    uint32_t ca_state = 0;
    // The kernel's own rates at the end: tcpi_delivery_rate is its last delivery-rate sample (one ACK's
    // worth, often app-limited as a test stops: 523 Gb/s and 0.04 Gb/s were seen for 50-60 Gb/s
    // streams), tcpi_pacing_rate the pacing rate it had set. Neither is the test's rate.
    uint64_t last_delivery_rate_Bps = 0, last_pacing_rate_Bps = 0;
    bool last_delivery_app_limited = false;
    // What changed. The delivery rate over the interval: bytes the peer acknowledged, per second.
    uint64_t bytes_acked = 0;
    uint64_t delivery_rate_Bps = 0;
    double busy = 0, rwnd_limited = 0, sndbuf_limited = 0;
    uint64_t retransmits = 0;  // segments
    uint64_t bytes_sent = 0, bytes_retrans = 0, bytes_received = 0;
};

// The settings a data socket ran with, read back from it (tcp/tcp_tuning.hpp), for the report.
struct TcpTuningInForce {
    std::string congestion;       // TCP_CONGESTION
    uint64_t max_pacing_Bps = 0;  // SO_MAX_PACING_RATE; 0 = unlimited (the kernel's ~0)
    int tos = -1;                 // IP_TOS / IPV6_TCLASS; -1: unreadable
    std::string bind_dev;         // SO_BINDTODEVICE; "" = any
    std::string family;           // "IPv4" or "IPv6" (an IPv4-mapped IPv6 socket says IPv4)
};

TcpSample tcp_sample(const TcpInfo& before, const TcpInfo& after, double interval_s);

// All streams of one side as one: counts summed; RTT, its variance, cwnd, ssthresh and the shares
// averaged over the streams that sent (over all where none did: a receiver's connections); rates summed.
// Empty in, empty (interval_s 0) out.
TcpSample tcp_summary(const std::vector<TcpSample>& streams);

// Which limit dominated, in words and with its share: "sndbuf-limited 63 % of the time (a bigger
// send buffer would help: -s)". Read on the sending socket; "" when there was nothing to judge.
std::string tcp_limit_line(const TcpSample& l);

}  // namespace zc
