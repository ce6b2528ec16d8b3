#include "protocol/pacing_report.hpp"

#include <fmt/format.h>

#include "protocol/field_table.hpp"

namespace zc {

namespace {

// A method this side does not know (a newer peer's) reads as none.
PacingMethod pacing_method_from(const std::string& name) {
    for (PacingMethod m : {PacingMethod::none, PacingMethod::sender_clock, PacingMethod::kernel_fq})
        if (name == pacing_method_name(m)) return m;
    return PacingMethod::none;
}

const auto kPacingCountFields =
    std::make_tuple(named("method", &PacingCounts::method, pacing_method_name, pacing_method_from),
                    scaled("sleep_s", &PacingCounts::sleep_ns, 1e-9, 1e9, 0.0, 1e9));
const auto kPacingFields = std::make_tuple(number("bitrate", &PacingReport::bitrate, kMinBitrate, kMaxBitrate),
                                           flat(&PacingReport::counts, kPacingCountFields));

}  // namespace

nlohmann::json to_json(const PacingReport& p) { return encoded(p, kPacingFields); }
PacingReport pacing_report_from_json(const nlohmann::json& j) { return decoded<PacingReport>(j, kPacingFields); }

std::string pacing_text(const PacingReport& p) {
    if (!p.asked() || p.counts.method == PacingMethod::none) return "";  // rdma-read's pacing is the reader's
    return fmt::format("paced at {} by the {}, waited {:.3f} s", bitrate_text(p.bitrate),
                       pacing_method_name(p.counts.method), static_cast<double>(p.counts.sleep_ns) * 1e-9);
}

std::string pacing_note(const PacingReport& paced, double tx_rate_bps, int streams) {
    if (!paced.asked()) return "";
    double err = 100.0 * (tx_rate_bps - static_cast<double>(paced.bitrate)) / static_cast<double>(paced.bitrate);
    return fmt::format("-b {}{}: the sender achieved {} ({:+.2f}%), paced by {}; it waited {:.3f} s for its schedule{}",
                       bitrate_text(paced.bitrate),
                       streams > 1 ? " per stream (" + std::to_string(streams) + " streams)" : std::string(),
                       bitrate_text(static_cast<uint64_t>(tx_rate_bps)), err, pacing_method_name(paced.counts.method),
                       static_cast<double>(paced.counts.sleep_ns) * 1e-9,
                       err < -5 && paced.counts.method == PacingMethod::sender_clock
                           ? " (it fell behind: the rate is more than this path sends)"
                           : "");
}

}  // namespace zc
