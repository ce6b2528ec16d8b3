// --histogram-log's encoding (measure/hdr_encoding.hpp), checked by a decoder written here from
// HdrHistogram's own definition of the V2 format (AbstractHistogram.encodeIntoByteBuffer and
// ZigZagEncoding in HdrHistogram's Java sources, the reference its C, Go and JS ports follow), not from
// zcperf's encoder: a value's index is HdrHistogram's countsArrayIndex, not zcperf's bucket_of.
#include <gtest/gtest.h>
#include <zlib.h>

#include <bit>
#include <map>
#include <string>
#include <vector>

#include "measure/hdr_encoding.hpp"
#include "measure/latency_histogram.hpp"

using namespace zc;

namespace {

// HdrHistogram at lowestDiscernibleValue 1 and 2 significant digits: subBucketCount 256 (the smallest
// power of two >= 2 * 10^2), unitMagnitude 0.
constexpr int kSubBucketHalfCountMagnitude = 7;
constexpr int64_t kSubBucketHalfCount = 128, kSubBucketMask = 255;

int64_t hdr_counts_index(int64_t value) {  // countsArrayIndex(value)
    const int bucket = 56 - std::countl_zero(static_cast<uint64_t>(value | kSubBucketMask));
    const int64_t sub = value >> bucket;
    return (int64_t{bucket + 1} << kSubBucketHalfCountMagnitude) + (sub - kSubBucketHalfCount);
}
int64_t hdr_value_from_index(int64_t index) {  // valueFromIndex(index): the lowest value of its bucket
    int64_t bucket = (index >> kSubBucketHalfCountMagnitude) - 1;
    int64_t sub = (index & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
    if (bucket < 0) {
        sub -= kSubBucketHalfCount;
        bucket = 0;
    }
    return sub << bucket;
}

struct Reader {
    const std::vector<uint8_t>& b;
    size_t at = 0;
    uint64_t be(int bytes) {
        uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v = (v << 8) | b.at(at++);
        return v;
    }
    int64_t zigzag() {  // LEB128-64b9B, then ZigZag
        uint64_t v = 0;
        for (int shift = 0; shift < 56; shift += 7) {
            const uint8_t byte = b.at(at++);
            v |= uint64_t{byte & 0x7fu} << shift;
            if (!(byte & 0x80)) return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
        }
        v |= uint64_t{b.at(at++)} << 56;
        return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
    }
};

struct Decoded {
    uint32_t cookie = 0, payload = 0, offset = 0, digits = 0;
    int64_t lowest = 0, highest = 0;
    double ratio = 0;
    std::map<int64_t, int64_t> counts;  // counts index -> count, non-empty only
};

Decoded decode_v2(const std::vector<uint8_t>& b) {
    Reader r{b};
    Decoded d;
    d.cookie = static_cast<uint32_t>(r.be(4));
    d.payload = static_cast<uint32_t>(r.be(4));
    d.offset = static_cast<uint32_t>(r.be(4));
    d.digits = static_cast<uint32_t>(r.be(4));
    d.lowest = static_cast<int64_t>(r.be(8));
    d.highest = static_cast<int64_t>(r.be(8));
    d.ratio = std::bit_cast<double>(r.be(8));
    EXPECT_EQ(b.size(), 40u + d.payload);
    int64_t index = 0;
    while (r.at < b.size()) {
        const int64_t word = r.zigzag();
        if (word < 0) {
            index += -word;  // a run of empty buckets
        } else {
            if (word > 0) d.counts[index] = word;
            ++index;
        }
    }
    return d;
}

std::vector<uint8_t> unbase64(const std::string& s) {
    std::vector<uint8_t> out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        int v = c >= 'A' && c <= 'Z'   ? c - 'A'
                : c >= 'a' && c <= 'z' ? c - 'a' + 26
                : c >= '0' && c <= '9' ? c - '0' + 52
                : c == '+'             ? 62
                : c == '/'             ? 63
                                       : -1;
        if (v < 0) continue;  // '=' padding
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<uint8_t>(acc >> bits));
        }
    }
    return out;
}

LatencyHistogram sample_histogram() {
    LatencyHistogram h;
    h.prepare();
    // Exact region (one bucket per ns), a run of empties, single empty gaps, the log-linear region, a far
    // outlier (a 9-byte-free count but a long empty run), and a count over 127 (a 2-byte word).
    for (uint64_t v : {0ull, 1ull, 3ull, 255ull, 256ull, 257ull, 17000ull, 17100ull, 45000000ull}) h.record(v);
    for (int i = 0; i < 300; ++i) h.record(20000);
    return h;
}

}  // namespace

TEST(HdrEncoding, TheIndexesAreHdrHistogramsOwn) {
    for (uint64_t v :
         {0ull, 1ull, 127ull, 128ull, 255ull, 256ull, 511ull, 512ull, 20000ull, 45000000ull, (1ull << 62) + 12345}) {
        const auto i = static_cast<int64_t>(LatencyHistogram::bucket_of(v));
        EXPECT_EQ(i, hdr_counts_index(static_cast<int64_t>(v))) << v;
        EXPECT_EQ(LatencyHistogram::bucket_low(static_cast<size_t>(i)), static_cast<uint64_t>(hdr_value_from_index(i)))
            << v;
    }
}

TEST(HdrEncoding, V2HeaderAndCountsDecodeToTheSameValues) {
    const LatencyHistogram h = sample_histogram();
    const Decoded d = decode_v2(hdr_encode_v2(h));
    EXPECT_EQ(d.cookie, 0x1c849313u);
    EXPECT_EQ(d.offset, 0u);
    EXPECT_EQ(d.digits, 2u);
    EXPECT_EQ(d.lowest, 1);
    EXPECT_GE(d.highest, 45000000);
    EXPECT_EQ(d.ratio, 1.0);
    // Every recorded value is counted at HdrHistogram's index for it, and nothing else is.
    std::map<int64_t, int64_t> want;
    for (uint64_t v : {0ull, 1ull, 3ull, 255ull, 256ull, 257ull, 17000ull, 17100ull, 45000000ull})
        ++want[hdr_counts_index(static_cast<int64_t>(v))];
    want[hdr_counts_index(20000)] += 300;
    EXPECT_EQ(d.counts, want);
    int64_t total = 0;
    for (const auto& [i, n] : d.counts) total += n;
    EXPECT_EQ(static_cast<uint64_t>(total), h.count());
}

TEST(HdrEncoding, ZigZagWordsMatchTheFormatsExamples) {
    LatencyHistogram h;
    h.prepare();
    h.record(0);                               // index 0: count 1 -> zigzag 2
    for (int i = 0; i < 64; ++i) h.record(2);  // index 1 empty (a lone 0), index 2: 64 -> 128: 0x80 0x01
    const std::vector<uint8_t> b = hdr_encode_v2(h);
    ASSERT_EQ(b.size(), 40u + 4u);
    EXPECT_EQ(std::vector<uint8_t>(b.begin() + 40, b.end()), (std::vector<uint8_t>{0x02, 0x00, 0x80, 0x01}));
    LatencyHistogram run;
    run.prepare();
    run.record(300);  // index 278 after 278 empties: -278 -> 555 = 0xab 0x04, then 1 -> 0x02
    const std::vector<uint8_t> r = hdr_encode_v2(run);
    EXPECT_EQ(std::vector<uint8_t>(r.begin() + 40, r.end()), (std::vector<uint8_t>{0xab, 0x04, 0x02}));
}

TEST(HdrEncoding, CompressedFormIsZlibOfTheV2Encoding) {
    const LatencyHistogram h = sample_histogram();
    const std::string text = hdr_compressed_base64(h);
    EXPECT_EQ(text.rfind("HISTF", 0), 0u) << text;  // what every V2 compressed histogram starts with
    const std::vector<uint8_t> b = unbase64(text);
    Reader r{b};
    EXPECT_EQ(r.be(4), 0x1c849314u);
    const uint64_t packed = r.be(4);
    ASSERT_EQ(b.size(), 8 + packed);
    std::vector<uint8_t> plain(1 << 16);
    uLongf plain_size = plain.size();
    ASSERT_EQ(uncompress(plain.data(), &plain_size, b.data() + 8, packed), Z_OK);
    plain.resize(plain_size);
    EXPECT_EQ(plain, hdr_encode_v2(h));
}

TEST(HdrEncoding, AnEmptyHistogramIsAValidEmptyOne) {
    LatencyHistogram h;
    h.prepare();
    const Decoded d = decode_v2(hdr_encode_v2(h));
    EXPECT_TRUE(d.counts.empty());
    EXPECT_EQ(d.highest, 2);  // HdrHistogram needs highest >= 2 * lowest
}
