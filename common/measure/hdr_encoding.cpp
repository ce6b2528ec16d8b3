#include "measure/hdr_encoding.hpp"

#include <zlib.h>

#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace zc {

namespace {

void put_be(std::vector<uint8_t>& out, uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// ZigZag, then LEB128-64b9B: 7 bits a byte for 8 bytes, the 9th holds the last 8 bits whole.
void put_zigzag(std::vector<uint8_t>& out, int64_t value) {
    auto v = static_cast<uint64_t>((value << 1) ^ (value >> 63));
    for (int i = 0; i < 8; ++i) {
        if ((v >> 7) == 0) {
            out.push_back(static_cast<uint8_t>(v));
            return;
        }
        out.push_back(static_cast<uint8_t>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

std::string base64(const std::vector<uint8_t>& in) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    for (size_t i = 0; i < in.size(); i += 3) {
        uint32_t n = uint32_t{in[i]} << 16;
        if (i + 1 < in.size()) n |= uint32_t{in[i + 1]} << 8;
        if (i + 2 < in.size()) n |= in[i + 2];
        out += kAlphabet[(n >> 18) & 63];
        out += kAlphabet[(n >> 12) & 63];
        out += i + 1 < in.size() ? kAlphabet[(n >> 6) & 63] : '=';
        out += i + 2 < in.size() ? kAlphabet[n & 63] : '=';
    }
    return out;
}

}  // namespace

int64_t hdr_highest_trackable(const LatencyHistogram& h) {
    const auto buckets = h.sparse();
    if (buckets.empty()) return 2;
    const size_t top = buckets.back().first;
    const uint64_t high = LatencyHistogram::bucket_low(top) + (LatencyHistogram::bucket_width(top) - 1);
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<int64_t>(std::max<uint64_t>(2, std::min(high, kMax)));
}

std::vector<uint8_t> hdr_encode_v2(const LatencyHistogram& h) {
    std::vector<uint8_t> payload;
    uint32_t next = 0;  // the next counts index to write: empty ones before a bucket go as one run
    for (const auto& [index, count] : h.sparse()) {
        const uint32_t empty = index - next;
        if (empty == 1) put_zigzag(payload, 0);
        if (empty > 1) put_zigzag(payload, -static_cast<int64_t>(empty));
        put_zigzag(payload, static_cast<int64_t>(count));
        next = index + 1;
    }
    std::vector<uint8_t> out;
    out.reserve(40 + payload.size());
    put_be(out, static_cast<uint32_t>(kHdrV2Cookie), 4);
    put_be(out, payload.size(), 4);
    put_be(out, 0, 4);  // normalizing index offset
    put_be(out, kHdrSignificantDigits, 4);
    put_be(out, 1, 8);  // lowest discernible value: 1 ns
    put_be(out, static_cast<uint64_t>(hdr_highest_trackable(h)), 8);
    put_be(out, std::bit_cast<uint64_t>(1.0), 8);  // integer-to-double conversion ratio
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

std::string hdr_compressed_base64(const LatencyHistogram& h) {
    const std::vector<uint8_t> plain = hdr_encode_v2(h);
    uLongf packed_size = compressBound(plain.size());
    std::vector<uint8_t> packed(packed_size);
    if (compress2(packed.data(), &packed_size, plain.data(), plain.size(), Z_DEFAULT_COMPRESSION) != Z_OK)
        throw std::runtime_error("--histogram-log: zlib could not compress a histogram");
    std::vector<uint8_t> out;
    out.reserve(8 + packed_size);
    put_be(out, static_cast<uint32_t>(kHdrV2CompressedCookie), 4);
    put_be(out, packed_size, 4);
    out.insert(out.end(), packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(packed_size));
    return base64(out);
}

}  // namespace zc
