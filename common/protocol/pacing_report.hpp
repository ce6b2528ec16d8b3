#pragma once
// -b's figures of one side, whatever its kind: the rate asked (per stream, as iperf3's) and how the side's
// loops kept it (the stop rule paces every stream loop: core/stream_counters.hpp). A section of the side's
// result under the key "pacing", sent only by a side that was asked a rate; its field table here writes and
// reads it, and the reports (the human `pacing:` line, the CSV's bitrate and pacing columns, the run's -b
// note) take it from here. Where -b may run is kind/spec_rules.cpp's pacing_problem.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/pacer.hpp"

namespace zc {

struct PacingReport {
    uint64_t bitrate = 0;  // -b, bits/s per stream (0: unpaced)
    PacingCounts counts;   // how this side's loops kept it (method none: they did not pace, e.g. a receiver)
    bool asked() const { return bitrate != 0; }
};

inline constexpr const char* kPacingKey = "pacing";  // the side's key

nlohmann::json to_json(const PacingReport& p);
PacingReport pacing_report_from_json(const nlohmann::json& j);  // throws ProtocolError naming a bad field

// The human report's words on a side that paced ("" where its loops did not): "paced at 1 Gbit/s by the
// sender clock, waited 0.812 s".
std::string pacing_text(const PacingReport& p);
// A paced test's note: the rate asked against the rate the sender achieved (`tx_rate_bps`, one stream's)
// and how it was kept ("" when `paced` asked no rate).
std::string pacing_note(const PacingReport& paced, double tx_rate_bps, int streams);

}  // namespace zc
