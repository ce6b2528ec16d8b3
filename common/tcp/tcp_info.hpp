#pragma once
// Reads TCP_INFO into tcp/tcp_stats.hpp's TcpInfo. glibc's <netinet/tcp.h> stops at tcpi_total_retrans
// (no pacing, delivery rate or the busy/rwnd/sndbuf chronographs), and <linux/tcp.h> cannot be included
// beside it, so the kernel's layout (include/uapi/linux/tcp.h, up to tcpi_snd_wnd, kernel 5.4) is
// restated here as KernelTcpInfo; tests/unit/test_tcp_info_layout.cpp checks every offset against the
// uapi header. The kernel fills as much as it has and says how much: fields past that stay 0.
#include <cstddef>
#include <cstdint>

#include "tcp/tcp_stats.hpp"

namespace zc {

struct KernelTcpInfo {
    uint8_t state, ca_state, retransmits, probes, backoff, options;
    uint8_t wscale;            // snd_wscale:4, rcv_wscale:4
    uint8_t app_limited_bits;  // delivery_rate_app_limited:1, fastopen_client_fail:2
    uint32_t rto, ato, snd_mss, rcv_mss;
    uint32_t unacked, sacked, lost, retrans, fackets;
    uint32_t last_data_sent, last_ack_sent, last_data_recv, last_ack_recv;
    uint32_t pmtu, rcv_ssthresh, rtt, rttvar, snd_ssthresh, snd_cwnd, advmss, reordering;
    uint32_t rcv_rtt, rcv_space;
    uint32_t total_retrans;
    uint64_t pacing_rate, max_pacing_rate, bytes_acked, bytes_received;
    uint32_t segs_out, segs_in;
    uint32_t notsent_bytes, min_rtt, data_segs_in, data_segs_out;
    uint64_t delivery_rate;
    uint64_t busy_time, rwnd_limited, sndbuf_limited;
    uint32_t delivered, delivered_ce;
    uint64_t bytes_sent, bytes_retrans;
    uint32_t dsack_dups, reord_seen;
    uint32_t rcv_ooopack;
    uint32_t snd_wnd;
};

// The named figures of a raw reading of `len` bytes (what getsockopt returned).
TcpInfo tcp_info_from_kernel(const KernelTcpInfo& k, size_t len);
// One getsockopt(TCP_INFO): safe from any thread while another uses the socket. invalid on failure.
TcpInfo read_tcp_info(int fd);

}  // namespace zc
