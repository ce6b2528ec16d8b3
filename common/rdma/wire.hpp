#pragma once
// What the two sides of an RDMA stream agree on, with no rdma-core types so it is unit-tested
// anywhere: the connection's private data, the immediate-data encoding, and the data pattern the
// receiver checks on samples of every message it counts.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace zc::rdma_wire {

inline constexpr uint32_t kMagic = 0x5a435244;  // "ZCRD"

// rdma_connect's private data (at most 56 bytes for RC over rdma_cm): one per queue pair.
struct ConnectRequest {
    uint32_t magic;
    uint32_t stream;  // which stream this QP belongs to
    uint64_t token;   // the token the server announced in Ready
    uint32_t qp;      // index of this QP within its stream
    uint32_t qps;     // QPs per stream (both sides must agree)
    uint64_t addr;    // rdma-read: the sender's (data source's) buffer; otherwise 0
    uint32_t rkey;
    uint32_t slots;  // receive slots for this QP when the client receives
    uint64_t length;
};
static_assert(sizeof(ConnectRequest) <= 56, "rdma_cm allows 56 bytes of private data in a connect request");

// rdma_accept's private data: the server's buffer, when the client must reach into it.
struct AcceptReply {
    uint32_t magic;
    uint32_t slots;  // receive slots for this QP (the sender's initial credits)
    uint64_t addr;   // rdma-write: the receiver's ring; rdma-read: the source's buffer
    uint32_t rkey;
    uint32_t pad;
    uint64_t length;
};
static_assert(sizeof(AcceptReply) <= 196, "rdma_cm allows 196 bytes of private data in an accept");

// The sender's last message on each QP (a SEND, after all data): how many messages the receiver has
// not yet been told of, the length of the last one (shorter than the message size when -n ends a
// stream mid-message), and the bytes the sender moved on this QP.
struct EndMessage {
    uint32_t magic;
    uint32_t unannounced;  // rdma-write: messages written after the last immediate
    uint64_t last_length;
    uint64_t bytes;  // rdma-read: the bytes the reader pulled (the source reports them)
};

// Receive slots per QP: the window of messages in flight, bounded so a stream's ring stays small
// (64 MiB) even at large messages and several QPs. At least 2 so one slot can land while one is checked.
inline uint32_t slots_per_qp(uint32_t tx_depth, uint32_t qps, uint64_t message_size) {
    uint64_t budget = (64ull << 20) / qps;
    uint64_t by_memory = message_size ? budget / message_size : tx_depth;
    uint64_t s = tx_depth < by_memory ? tx_depth : by_memory;
    return static_cast<uint32_t>(s < 2 ? 2 : s);
}

// msgrate's receive window per QP (at least): perftest's default receive depth for its bandwidth
// tests, so that zcperf's sender, which waits for credits where perftest's would draw RNR NAKs,
// meets the same receive window. Measured in the Soft-RoCE guest: with 128 receives the sender
// waited for credits 50-180 times in 3 s and ran ~25 % slower than ib_send_bw; with 512, never.
inline constexpr uint32_t kMsgrateWindow = 512;

// How often a receiver returns credits (and, for rdma-write, a sender announces progress): a quarter
// of the window, so the sender never stalls waiting while the receiver still holds returned slots.
inline uint32_t announce_every(uint32_t slots) { return slots >= 4 ? slots / 4 : 1; }

// The pattern: byte i of every message. Depends on the offset only, so one source buffer serves
// every message; the receiver poisons what it checked so a message that never landed is caught.
inline uint8_t pattern_byte(uint64_t offset) { return static_cast<uint8_t>((offset * 7) ^ (offset >> 8) ^ 0x5a); }

inline void fill_pattern(std::byte* p, uint64_t len) {
    for (uint64_t i = 0; i < len; ++i) p[i] = static_cast<std::byte>(pattern_byte(i));
}

// Checks up to three 8-byte samples (start, middle, end) of a message of `len` bytes that landed in
// `p`, then overwrites them with the complement so the next message must overwrite them again.
// Returns false when a sample is not what the sender wrote.
// (A staged receiver checks first, copies the message on to GPU memory, and poisons once the copy is
// done: check_samples, then poison_samples.)
inline bool check_samples(const std::byte* p, uint64_t len) {
    if (len == 0) return true;
    const uint64_t offs[3] = {0, len / 2, len > 8 ? len - 8 : 0};
    for (uint64_t o : offs) {  // check all first: samples of a short message overlap
        for (uint64_t i = 0; i < 8 && o + i < len; ++i)
            if (static_cast<uint8_t>(p[o + i]) != pattern_byte(o + i)) return false;
    }
    return true;
}

inline void poison_samples(std::byte* p, uint64_t len) {
    if (len == 0) return;
    const uint64_t offs[3] = {0, len / 2, len > 8 ? len - 8 : 0};
    for (uint64_t o : offs) {
        for (uint64_t i = 0; i < 8 && o + i < len; ++i) p[o + i] = static_cast<std::byte>(~pattern_byte(o + i));
    }
}

inline bool check_and_poison(std::byte* p, uint64_t len) {
    if (!check_samples(p, len)) return false;
    poison_samples(p, len);
    return true;
}

// A byte stream (rsocket): byte k of the stream is pattern_byte(k % message_size). Checks the first
// and last byte of a chunk that starts at stream offset `at`.
inline bool check_stream_chunk(const std::byte* p, uint64_t len, uint64_t at, uint64_t message_size) {
    if (len == 0) return true;
    return static_cast<uint8_t>(p[0]) == pattern_byte(at % message_size) &&
           static_cast<uint8_t>(p[len - 1]) == pattern_byte((at + len - 1) % message_size);
}

// Immediate data on rdma-write progress: the number of whole messages landed since the last one.
// (The last, possibly short, message is announced by the EndMessage instead.)

}  // namespace zc::rdma_wire
