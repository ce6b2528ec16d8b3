#include "report/samples_report.hpp"

#include <fmt/format.h>

#include "report/explain_report.hpp"

namespace zc {

void write_samples_header(std::ostream& out) { out << "test,run,stream,start_ns,latency_ns\n"; }

uint64_t write_samples(std::ostream& out, const TestResult& r) {
    const auto& kept = r.local.messages.samples;
    const std::string label = explain_test_label(r);
    const size_t streams = r.streams > 0 ? static_cast<size_t>(r.streams) : 1;
    fmt::memory_buffer buf;  // millions of lines: formatted in chunks, not through iostream's per-field path
    uint64_t lines = 0;
    for (size_t b = 0; b < kept.size(); ++b) {
        const LatencySamples& s = *kept[b];
        for (uint64_t i = 0; i < s.kept(); ++i, ++lines) {
            fmt::format_to(std::back_inserter(buf), "{},{},{},{},{}\n", label, b / streams, b % streams,
                           s[i].start_ns - s.origin_ns(), s[i].latency_ns);
            if (buf.size() > (1 << 20)) {
                out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
                buf.clear();
            }
        }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    out.flush();
    return lines;
}

}  // namespace zc
