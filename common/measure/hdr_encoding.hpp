#pragma once
// A LatencyHistogram in HdrHistogram's own serial form, so HdrHistogram's tools read zcperf's latencies
// (--histogram-log). zcperf's buckets are HdrHistogram's with lowestDiscernibleValue 1 and 2 significant
// digits, exactly: both keep 256 one-unit buckets below 256 and then 128 sub-buckets per power of two, and
// both number them the same way (bucket_of(v) is HdrHistogram's countsArrayIndex(v)), so the conversion
// moves every count to the same value range: nothing is re-binned or lost.
//
// The V2 encoding (HdrHistogram's AbstractHistogram.encodeIntoByteBuffer, also its C and Go ports), all
// big-endian: cookie 0x1c849313, payload length, normalizing index offset 0, significant digits 2,
// lowest discernible value 1 (int64), highest trackable value (int64), integer-to-double ratio 1.0
// (IEEE double), then the counts from index 0 to the highest non-empty one, each a ZigZag LEB128-64b9B
// word: a count, or minus the length of a run of two or more empty buckets. Compressed: cookie
// 0x1c849314, the zlib stream's length, then zlib (deflate) of the whole V2 encoding.
#include <cstdint>
#include <string>
#include <vector>

#include "measure/latency_histogram.hpp"

namespace zc {

inline constexpr int32_t kHdrV2Cookie = 0x1c849303 | 0x10;
inline constexpr int32_t kHdrV2CompressedCookie = 0x1c849304 | 0x10;
inline constexpr int32_t kHdrSignificantDigits = 2;  // 2 digits: 256 sub-buckets, zcperf's kSubBits + 1 bits

// The highest value a decoder must be able to hold: the top of h's highest non-empty bucket (at least 2).
int64_t hdr_highest_trackable(const LatencyHistogram& h);
// The uncompressed V2 encoding of h (values in the histogram's unit, ns).
std::vector<uint8_t> hdr_encode_v2(const LatencyHistogram& h);
// The compressed V2 encoding, base64 (what a histogram log's line carries: "HISTFAAA...").
std::string hdr_compressed_base64(const LatencyHistogram& h);

}  // namespace zc
