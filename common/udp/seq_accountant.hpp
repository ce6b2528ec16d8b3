#pragma once
// The receiver's account of a UDP stream from the sequence numbers its datagrams carry, as iperf3 and
// RFC 3550 keep it: a datagram past the next expected one counts the gap as lost; one behind it is
// out of order (and no longer lost), or a duplicate when its number was already seen (a window of the
// last 4096 numbers remembers which); jitter is RFC 3550's J += (|D| - J) / 16 over the transit times
// (arrival less the sender's stamp: on two hosts their clocks' offset cancels out of D). Pure logic,
// no system call: the receive loops feed it, the unit tests drive it directly.
#include <algorithm>
#include <array>
#include <cstdint>

#include "udp/udp_counts.hpp"

namespace zc {

class SeqAccountant {
public:
    static constexpr uint64_t kWindow = 4096;  // numbers remembered for duplicate detection

    // One data datagram: its number, the sender's stamp and the arrival time (ns). In order (the common
    // case) it costs a bit set and the jitter's update; a gap clears the skipped numbers' bits a word at a time.
    void datagram(uint64_t seq, int64_t send_ns, int64_t arrival_ns) {
        if (seq == next_) [[likely]] {
            mark(seq);
            ++next_;
        } else if (seq > next_) {
            skip_to(seq);
        } else if (next_ - seq <= kWindow && was_seen(seq)) {
            ++dups_;
            return;  // neither counted nor timed again
        } else {
            ++reordered_;
            if (gaps_) --gaps_;  // counted lost when its successor came first
            if (next_ - seq <= kWindow) mark(seq);
        }
        ++received_;
        int64_t transit = arrival_ns - send_ns;
        if (have_transit_) {
            int64_t d = transit - last_transit_;
            if (d < 0) d = -d;
            jitter_ns_ += (static_cast<double>(d) - jitter_ns_) / 16.0;
        }
        last_transit_ = transit;
        have_transit_ = true;
    }

    // The sender's end marker: how many datagrams it sent in all (lost = those never received,
    // including a tail the gaps cannot see).
    void sender_total(uint64_t sent) {
        sender_total_ = sent;
        have_total_ = true;
    }

    uint64_t received() const { return received_; }
    uint64_t lost() const {
        if (have_total_) return sender_total_ > received_ ? sender_total_ - received_ : 0;
        return gaps_;
    }
    double jitter_s() const { return jitter_ns_ / 1e9; }

    // Into a stream's counters (datagrams, lost, reordered, duplicates, jitter, the sender's total).
    void fill(UdpCounts& u) const {
        u.datagrams = received_;
        u.lost = lost();
        u.reordered = reordered_;
        u.duplicates = dups_;
        u.jitter_s = jitter_s();
        u.end_marker = have_total_;
        u.sender_datagrams = have_total_ ? sender_total_ : 0;
    }

private:
    static constexpr size_t kWords = kWindow / 64;
    void mark(uint64_t s) { seen_[(s / 64) % kWords] |= 1ull << (s % 64); }
    // A datagram past the next expected one: the numbers between are lost (until they come late), and
    // their bits, last used by numbers a window ago, are cleared.
    void skip_to(uint64_t seq) {
        if (seq - next_ >= kWindow) {
            seen_.fill(0);  // a jump past the window: nothing in it was seen
        } else {
            for (uint64_t s = next_; s < seq;) {
                uint64_t bit = s % 64, n = std::min<uint64_t>(64 - bit, seq - s);
                uint64_t bits = n == 64 ? ~0ull : ((1ull << n) - 1) << bit;
                seen_[(s / 64) % kWords] &= ~bits;
                s += n;
            }
        }
        gaps_ += seq - next_;
        next_ = seq + 1;
        mark(seq);
    }
    bool was_seen(uint64_t s) const { return seen_[(s / 64) % kWords] >> (s % 64) & 1; }

    uint64_t next_ = 0;  // the next number expected
    uint64_t received_ = 0, gaps_ = 0, reordered_ = 0, dups_ = 0;
    uint64_t sender_total_ = 0;
    bool have_total_ = false;
    int64_t last_transit_ = 0;
    bool have_transit_ = false;
    double jitter_ns_ = 0;
    std::array<uint64_t, kWords> seen_{};
};

}  // namespace zc
