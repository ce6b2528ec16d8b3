#pragma once
// --samples FILE: every rr transaction the client kept, one CSV line each, for a person to plot or test.
#include <ostream>

#include "protocol/result.hpp"

namespace zc {

// The one header line: "test,run,stream,start_ns,latency_ns".
void write_samples_header(std::ostream& out);
// One line per kept transaction of r: the test ("tcp rr 64 B"), the repetition (-i) and stream it ran
// in, its start in ns since that repetition's measured interval began, its round trip in ns.
// Returns the lines written.
uint64_t write_samples(std::ostream& out, const TestResult& r);

}  // namespace zc
