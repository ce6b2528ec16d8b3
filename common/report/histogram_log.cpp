#include "report/histogram_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "measure/hdr_encoding.hpp"
#include "report/explain_report.hpp"

namespace zc {

void write_histogram_log_header(std::ostream& out, double start_epoch_s) {
    const auto whole = static_cast<time_t>(start_epoch_s);
    char when[64] = {};
    tm utc{};
    strftime(when, sizeof(when), "%a %b %d %H:%M:%S UTC %Y", gmtime_r(&whole, &utc));
    out << "#[Histogram log format version 1.3]\n"
        << fmt::format("#[StartTime: {:.3f} (seconds since epoch), {}]\n", start_epoch_s, when)
        << "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
    out.flush();
}

bool write_histogram_log_line(std::ostream& out, const TestResult& r, double start_s, bool tagged) {
    const LatencyHistogram& h = r.local.messages.rtt;
    if (!is_transaction_test(r.test) || h.count() == 0) return false;
    std::string tag;
    if (tagged) {
        tag = explain_test_label(r);
        std::replace(tag.begin(), tag.end(), ' ', '_');
        std::replace(tag.begin(), tag.end(), ',', '_');
        tag = "Tag=" + tag + ",";
    }
    const double length_s = r.messages.elapsed_s > 0 ? r.messages.elapsed_s : r.elapsed_s;
    out << fmt::format("{}{:.3f},{:.3f},{:.3f},{}\n", tag, start_s, length_s, static_cast<double>(h.max()) / 1e6,
                       hdr_compressed_base64(h));
    out.flush();
    return true;
}

}  // namespace zc
