#pragma once
// --histogram-log FILE: the rr (crr, cc) round trips as an HdrHistogram interval log (log format 1.3, each
// line a compressed V2 histogram: measure/hdr_encoding.hpp), for HdrHistogram's own tools:
// HistogramLogProcessor, hdr-plot, the hdrhistogram packages' log readers. Values are nanoseconds; a
// line's Interval_Max is in milliseconds (HdrHistogram's default max-value unit ratio, 10^6).
#include <ostream>
#include <string>

#include "protocol/result.hpp"

namespace zc {

// The log's header: format version, start time (seconds since the epoch) and the column legend.
void write_histogram_log_header(std::ostream& out, double start_epoch_s);

// r's round-trip histogram as one line (none for tests that time no transactions; returns whether one was
// written): "[Tag=TAG,]START,LENGTH,MAX_MS,HISTFAAA...", START in seconds since the header's start time,
// LENGTH the test's measured interval. tagged: the line carries the test's label (spaces as '_': the
// readers split on them), for logs of several tests (HistogramLogProcessor -tag picks one).
bool write_histogram_log_line(std::ostream& out, const TestResult& r, double start_s, bool tagged);

}  // namespace zc
