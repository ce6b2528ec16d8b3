#include "protocol/interval.hpp"

#include <algorithm>

#include "measure/cpu_meter.hpp"
#include "measure/service_demand.hpp"
#include "protocol/field_table.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

namespace {

constexpr double kMaxSeconds = 2 * kMaxDurationS;  // an overrun may outlast the test's -l
constexpr uint64_t kMaxCount = uint64_t{1} << 62;

// The wire fields of an interval message, one line each (field_table.hpp); the round-trip figures
// are apart because the report leaves them out where there are none.
// An interval's place and bytes: a side's, and a report row's (its counting side's, named alike).
template <class S>
auto span_fields() {
    return std::make_tuple(number("index", &S::index, 0, 100'000'000), number("start_s", &S::start_s, 0, kMaxSeconds),
                           number("end_s", &S::end_s, 0, kMaxSeconds), number("bytes", &S::bytes, 0, kMaxCount));
}
constexpr const char* kMessages = "messages";  // a row names them after the test's unit
const auto kCountFields = std::tuple_cat(span_fields<SideInterval>(),
                                         std::make_tuple(number(kMessages, &SideInterval::messages, 0, kMaxCount),
                                                         number("cpu_util_pct", &SideInterval::cpu_util_pct, 0, 100),
                                                         number("busy_cpu_s", &SideInterval::busy_cpu_s, 0, 1e9),
                                                         number("process_cpu_s", &SideInterval::process_cpu_s, 0, 1e9),
                                                         number("shared_tests", &SideInterval::shared_tests, 0, 4096,
                                                                0)));  // absent (an older peer): not known
const auto kRttFields = std::make_tuple(number("rtt_samples", &SideInterval::rtt_samples, 0, kMaxCount),
                                        number("rtt_p50_us", &SideInterval::rtt_p50_us, 0, 1e12),
                                        number("rtt_p99_us", &SideInterval::rtt_p99_us, 0, 1e12));
const auto kSideIntervalFields = std::tuple_cat(kCountFields, kRttFields);

}  // namespace

double SideInterval::service_demand_us_per_kb() const { return zc::service_demand_us_per_kb(busy_cpu_s, bytes); }

nlohmann::json to_json(const SideInterval& s) {
    nlohmann::json j;
    encode_fields(j, s, kSideIntervalFields);
    kind_blocks_to_json(s.kinds, j);
    return j;
}

SideInterval side_interval_from_json(const nlohmann::json& j) {
    SideInterval s;
    decode_fields(j, s, kSideIntervalFields);
    s.kinds = kind_blocks_from_json(j);
    if (s.end_s < s.start_s) throw ProtocolError("field 'end_s' is before 'start_s'");
    return s;
}

SideInterval interval_between(const IntervalReading& a, const IntervalReading& b, uint32_t index, long ticks_per_s) {
    SideInterval s;
    s.index = index;
    s.start_s = a.t_s;
    s.end_s = std::max(a.t_s, b.t_s);
    s.bytes = b.bytes - std::min(a.bytes, b.bytes);  // running totals never go back; be safe anyway
    s.messages = b.messages - std::min(a.messages, b.messages);
    if (!a.stat.per_cpu.empty() && !b.stat.per_cpu.empty()) {
        CpuUsage u = usage_between(a.stat, b.stat, s.duration_s(), ticks_per_s);
        s.cpu_util_pct = std::clamp(u.all.busy(), 0.0, 100.0);
        s.busy_cpu_s = u.busy_cpu_s;
    }
    s.process_cpu_s = std::max(0.0, b.thread_cpu_s - a.thread_cpu_s);
    LatencyHistogram rtt = LatencyHistogram::since(b.rtt, a.rtt);
    s.rtt_samples = rtt.count();
    s.rtt_p50_us = static_cast<double>(rtt.percentile(50)) / 1e3;
    s.rtt_p99_us = static_cast<double>(rtt.percentile(99)) / 1e3;
    return s;
}

namespace {
// The report's view of one side's interval: its counts with their service demand, and the round trips
// where there are any (rr's counting side).
nlohmann::json side_json(const std::optional<SideInterval>& s, Workload test) {
    if (!s) return nullptr;
    nlohmann::json j = encoded(*s, kCountFields);
    kind_blocks_to_json(s->kinds, j);
    if (is_transaction_test(test) && s->rtt_samples > 0) encode_fields(j, *s, kRttFields);
    j["service_demand_us_per_kb"] = s->service_demand_us_per_kb();
    if (is_message_test(test)) j["service_demand_us_per_msg"] = service_demand_us_per_tran(s->busy_cpu_s, s->messages);
    return j;
}

// A row's fields besides the counted messages (named after the test's unit: to_json below).
const auto kIntervalRowFields =
    std::tuple_cat(span_fields<IntervalRow>(), std::make_tuple(number("iteration", &IntervalRow::iteration),
                                                               number("throughput_gbps", &IntervalRow::throughput_gbps),
                                                               number("stall", &IntervalRow::stall)));
}  // namespace

nlohmann::json to_json(const IntervalRow& r, Workload test) {
    nlohmann::json j = encoded(r, kIntervalRowFields);
    j["local"] = side_json(r.local, test);
    j["remote"] = side_json(r.remote, test);
    if (is_message_test(test)) {
        j[is_transaction_test(test) ? "transactions" : kMessages] = r.messages;
        j[is_transaction_test(test) ? "transactions_per_s" : "messages_per_s"] = r.messages_per_s;
    }
    return j;
}

void IntervalPairer::add(const SideInterval& s, bool counting) {
    // Each side numbers its intervals by their first edge, so they only grow; anything else is not ours.
    auto& list = counting ? counting_ : other_;
    if (!list.empty() && s.index <= list.back().index)
        throw ProtocolError("interval " + std::to_string(s.index) + " came after interval " +
                            std::to_string(list.back().index));
    list.push_back(s);
}

IntervalRow IntervalPairer::row(const SideInterval& counting, const SideInterval* other) const {
    IntervalRow r;
    r.iteration = iteration_;
    r.index = counting.index;
    r.start_s = counting.start_s;
    r.end_s = counting.end_s;
    r.bytes = counting.bytes;
    r.messages = counting.messages;
    double d = counting.duration_s();
    r.throughput_gbps = d > 0 ? static_cast<double>(r.bytes) * 8 / d / 1e9 : 0;
    r.messages_per_s = d > 0 ? static_cast<double>(r.messages) / d : 0;
    // A whole interval (the last one may be a sliver) in which nothing moved.
    r.stall = r.bytes == 0 && r.messages == 0 && d >= 0.5 * interval_s_;
    (local_counts_ ? r.local : r.remote) = counting;
    if (other) (local_counts_ ? r.remote : r.local) = *other;
    return r;
}

std::vector<IntervalRow> IntervalPairer::take(bool all) {
    std::vector<IntervalRow> out;
    bool other_expected = remote_expected_;  // without server samples, both "sides" are ours: no other
    for (; next_ < counting_.size(); ++next_) {
        const SideInterval& c = counting_[next_];
        while (other_next_ < other_.size() && other_[other_next_].index < c.index) ++other_next_;  // unmatched
        const SideInterval* o = nullptr;
        if (other_next_ < other_.size() && other_[other_next_].index == c.index) o = &other_[other_next_];
        // Ready: the other's interval is in, or the other side is past this one (it skipped it), or none comes.
        bool ready = o || !other_expected || other_next_ < other_.size() || all;
        if (!ready) break;
        out.push_back(row(c, o));
    }
    return out;
}

}  // namespace zc
