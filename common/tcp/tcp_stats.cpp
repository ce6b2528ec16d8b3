#include "tcp/tcp_stats.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace zc {

namespace {
// A counter that went backwards (another socket read, a wrapped 32-bit count) counts as no change.
uint64_t grew(uint64_t before, uint64_t after) { return after >= before ? after - before : 0; }
double share(uint64_t us, double interval_s) {
    return std::clamp(static_cast<double>(us) * 1e-6 / interval_s, 0.0, 1.0);
}
std::string pct(double s) { return std::to_string(static_cast<int>(std::lround(s * 100))) + " %"; }
}  // namespace

TcpSample tcp_sample(const TcpInfo& before, const TcpInfo& after, double interval_s) {
    TcpSample l;
    l.interval_s = interval_s;
    if (!after.valid || interval_s <= 0) return l;
    l.rtt_us = after.rtt_us;
    l.rttvar_us = after.rttvar_us;
    l.min_rtt_us = after.min_rtt_us;
    l.snd_cwnd = after.snd_cwnd;
    l.snd_ssthresh = after.snd_ssthresh;
    l.snd_mss = after.snd_mss;
    l.snd_wnd = after.snd_wnd;
    l.rcv_space = after.rcv_space;
    l.ca_state = after.ca_state;
    l.last_delivery_rate_Bps = after.delivery_rate_Bps;
    l.last_delivery_app_limited = after.delivery_rate_app_limited;
    l.last_pacing_rate_Bps = after.pacing_rate_Bps;
    l.bytes_acked = grew(before.bytes_acked, after.bytes_acked);
    l.delivery_rate_Bps = static_cast<uint64_t>(std::llround(static_cast<double>(l.bytes_acked) / interval_s));
    l.bytes_received = grew(before.bytes_received, after.bytes_received);
    l.retransmits = grew(before.total_retrans, after.total_retrans);
    l.bytes_sent = grew(before.bytes_sent, after.bytes_sent);
    l.bytes_retrans = grew(before.bytes_retrans, after.bytes_retrans);
    l.has_chrono = after.has_chrono;
    if (!l.has_chrono) return l;
    l.busy = share(grew(before.busy_us, after.busy_us), interval_s);
    l.rwnd_limited = std::min(l.busy, share(grew(before.rwnd_limited_us, after.rwnd_limited_us), interval_s));
    l.sndbuf_limited =
        std::min(l.busy - l.rwnd_limited, share(grew(before.sndbuf_limited_us, after.sndbuf_limited_us), interval_s));
    return l;
}

TcpSample tcp_summary(const std::vector<TcpSample>& streams) {
    TcpSample t;
    double n = 0, rtt = 0, rttvar = 0, cwnd = 0, snd_wnd = 0, rcv_space = 0;
    const bool any_sent =
        std::any_of(streams.begin(), streams.end(), [](const TcpSample& s) { return s.bytes_sent > 0; });
    for (const TcpSample& s : streams) {
        t.interval_s = std::max(t.interval_s, s.interval_s);
        t.has_chrono = t.has_chrono || s.has_chrono;
        t.retransmits += s.retransmits;
        t.bytes_sent += s.bytes_sent;
        t.bytes_retrans += s.bytes_retrans;
        t.bytes_received += s.bytes_received;
        t.bytes_acked += s.bytes_acked;
        t.delivery_rate_Bps += s.delivery_rate_Bps;  // the streams ran over the same interval: rates add
        t.last_delivery_rate_Bps += s.last_delivery_rate_Bps;
        t.last_delivery_app_limited = t.last_delivery_app_limited || s.last_delivery_app_limited;
        t.last_pacing_rate_Bps += s.last_pacing_rate_Bps;
        if (s.min_rtt_us && (!t.min_rtt_us || s.min_rtt_us < t.min_rtt_us)) t.min_rtt_us = s.min_rtt_us;
        t.snd_mss = std::max(t.snd_mss, s.snd_mss);
        t.ca_state = std::max(t.ca_state, s.ca_state);
        t.snd_ssthresh = std::max(t.snd_ssthresh, s.snd_ssthresh);
        if (s.bytes_sent == 0 && any_sent) continue;  // beside senders, a receiving stream's window says nothing
        n += 1;
        rtt += s.rtt_us;
        rttvar += s.rttvar_us;
        cwnd += s.snd_cwnd;
        snd_wnd += s.snd_wnd;
        rcv_space += s.rcv_space;
        t.busy += s.busy;
        t.rwnd_limited += s.rwnd_limited;
        t.sndbuf_limited += s.sndbuf_limited;
    }
    if (n > 0) {
        auto avg = [n](double v) { return static_cast<uint32_t>(std::lround(v / n)); };
        t.rtt_us = avg(rtt);
        t.rttvar_us = avg(rttvar);
        t.snd_cwnd = avg(cwnd);
        t.snd_wnd = avg(snd_wnd);
        t.rcv_space = avg(rcv_space);
        t.busy /= n;
        t.rwnd_limited /= n;
        t.sndbuf_limited /= n;
    }
    return t;
}

std::string tcp_limit_line(const TcpSample& l) {
    if (!l.has_chrono || l.interval_s <= 0 || (l.bytes_sent == 0 && l.busy == 0)) return "";
    // The interval splits four ways: held by the receiver's window, by the send buffer, sending
    // with both open (congestion window, the link, the CPU moving the data), or nothing to send.
    const double window = l.busy - l.rwnd_limited - l.sndbuf_limited;
    const double idle = 1.0 - l.busy;
    std::string line;
    if (l.rwnd_limited >= l.sndbuf_limited && l.rwnd_limited >= window && l.rwnd_limited >= idle)
        line = "rwnd-limited " + pct(l.rwnd_limited) +
               " of the time: the receiver's window was full (a slow receiver, or its buffer: -s, net.ipv4.tcp_rmem)";
    else if (l.sndbuf_limited >= window && l.sndbuf_limited >= idle)
        line = "sndbuf-limited " + pct(l.sndbuf_limited) +
               " of the time: the send buffer was full while the windows were open (-s, net.ipv4.tcp_wmem)";
    else if (window >= idle)
        line = "sending " + pct(window) +
               " of the time with both windows open: cwnd, the link or the CPU moving the data set the pace";
    else
        line = "application-limited " + pct(idle) + " of the time: nothing was queued to send";
    if (l.retransmits > 0) line += "; " + std::to_string(l.retransmits) + " segments retransmitted";
    return line;
}

}  // namespace zc
