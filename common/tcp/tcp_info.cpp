#include "tcp/tcp_info.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace zc {

TcpInfo tcp_info_from_kernel(const KernelTcpInfo& k, size_t len) {
    TcpInfo t;
    auto has = [len](size_t end) { return len >= end; };
    if (!has(offsetof(KernelTcpInfo, pacing_rate))) return t;  // before 4.2: too little to report
    t.valid = true;
    t.ca_state = k.ca_state;
    t.rtt_us = k.rtt;
    t.rttvar_us = k.rttvar;
    t.rto_us = k.rto;
    t.snd_cwnd = k.snd_cwnd;
    t.snd_ssthresh = k.snd_ssthresh;
    t.snd_mss = k.snd_mss;
    t.rcv_space = k.rcv_space;
    t.unacked = k.unacked;
    t.lost = k.lost;
    t.total_retrans = k.total_retrans;
    t.delivery_rate_app_limited = k.app_limited_bits & 1;
    if (has(offsetof(KernelTcpInfo, bytes_acked))) {
        t.pacing_rate_Bps = k.pacing_rate;
        t.max_pacing_rate_Bps = k.max_pacing_rate;
    }
    if (has(offsetof(KernelTcpInfo, segs_out))) {
        t.bytes_acked = k.bytes_acked;
        t.bytes_received = k.bytes_received;
    }
    if (has(offsetof(KernelTcpInfo, delivery_rate))) {
        t.min_rtt_us = k.min_rtt;
        t.data_segs_in = k.data_segs_in;
        t.data_segs_out = k.data_segs_out;
    }
    if (has(offsetof(KernelTcpInfo, busy_time))) t.delivery_rate_Bps = k.delivery_rate;
    if (has(offsetof(KernelTcpInfo, delivered))) {
        t.has_chrono = true;
        t.busy_us = k.busy_time;
        t.rwnd_limited_us = k.rwnd_limited;
        t.sndbuf_limited_us = k.sndbuf_limited;
    }
    if (has(offsetof(KernelTcpInfo, dsack_dups))) {
        t.bytes_sent = k.bytes_sent;
        t.bytes_retrans = k.bytes_retrans;
    }
    if (has(sizeof(KernelTcpInfo))) t.snd_wnd = k.snd_wnd;
    return t;
}

TcpInfo read_tcp_info(int fd) {
    KernelTcpInfo k{};
    socklen_t len = sizeof(k);
    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &k, &len) != 0) return {};
    return tcp_info_from_kernel(k, len);
}

}  // namespace zc
