// The report's document of a test (to_json(TestResult)): each side's wire fields (result.cpp) with the
// figures computed from them, and the test's own: iterations, baseline, message figures, intervals.
#include <cctype>
#include <vector>

#include "measure/service_demand.hpp"
#include "protocol/field_table.hpp"
#include "protocol/result.hpp"

namespace zc {

namespace {

// The report's fields (encoded only): what the reader gets beside each side's wire fields.
using SR = SideResult;
const auto kSideFigureFields = std::make_tuple(
    derived<SR>("cpu_util_pct", [](const SR& s) { return s.cpu_util_pct(); }),
    derived<SR>("service_demand_us_per_kb", [](const SR& s) { return s.service_demand_us_per_kb(); }),
    derived<SR>("process_cpu_util_pct", [](const SR& s) { return s.process_cpu_util_pct(); }),
    derived<SR>("process_service_demand_us_per_kb", [](const SR& s) { return s.process_service_demand_us_per_kb(); }),
    derived<SR>("test_cpus_busy_s", [](const SR& s) { return s.test_cpus_busy_s(); }),
    derived<SR>("test_cpus_service_demand_us_per_kb",
                [](const SR& s) { return service_demand_us_per_kb(s.test_cpus_busy_s(), s.bytes); }),
    derived<SR>("other_processes_cpu_pct_of_one_cpu", [](const SR& s) { return s.others_cpu_pct_of_one_cpu(); }),
    derived<SR>("whole_host_cpu_shared", [](const SR& s) { return s.host_shared(); }));

double pct(uint64_t part, uint64_t whole) { return 100.0 * static_cast<double>(part) / static_cast<double>(whole); }

nlohmann::json side_summary(const SideResult& s) {
    auto j = to_json(s);
    encode_fields(j, s, kSideFigureFields);
    const ZeroCopyCounts& z = s.zerocopy;
    if (z.sent_bytes > 0) j[kZeroCopyKey]["copied_pct"] = pct(z.copied_bytes, z.sent_bytes);
    uint64_t rx = z.rx_mapped_bytes + z.rx_copied_bytes;
    if (rx > 0) j[kZeroCopyKey]["rx_mapped_pct"] = pct(z.rx_mapped_bytes, rx);
    return j;
}

// The JSON report's explain object gains each category per unit, and the deltas against the baseline.
void add_explain_per_unit(nlohmann::json& side, const TestResult& r, const SideResult& s,
                          const std::vector<std::pair<Category, double>>& delta) {
    if (!s.explain.ran) return;
    double units = explain_units(r, s);
    nlohmann::json per = nlohmann::json::object();
    for (size_t i = 0; i < kCategoryCount; ++i)
        per[category_names()[i].key] = explain_per_unit(s.explain.category_s[i], units);
    auto& e = side[kExplainKey];
    e["unit"] = explain_unit(r.test);
    e["per_unit"] = per;
    e["sampled_per_unit"] = explain_per_unit(s.explain.busy_s, units);
    // Each category's share of the sampled busy time and its 95 % sampling error (binomial), in %.
    nlohmann::json share = nlohmann::json::object(), error = nlohmann::json::object();
    for (size_t i = 0; i < kCategoryCount; ++i) {
        const char* key = category_names()[i].key;
        share[key] = s.explain.busy_s > 0 ? 100.0 * s.explain.category_s[i] / s.explain.busy_s : 0.0;
        error[key] = share_error_pct(s.explain.category_samples[i], s.explain.busy_samples);
    }
    e["share_pct"] = share;
    e["share_error_pct"] = error;
    // Of the test's own processes' kernel samples, the share no rule names (other kernel, unknown).
    if (s.explain.own_kernel_samples > 0)
        e["own_unclassified_pct"] = 100.0 * static_cast<double>(s.explain.own_unclassified_samples) /
                                    static_cast<double>(s.explain.own_kernel_samples);
    if (!delta.empty()) {
        nlohmann::json d = nlohmann::json::object();
        for (const auto& [c, v] : delta) d[category_key(c)] = v;
        e["delta_vs_baseline_per_unit"] = d;
    }
}

nlohmann::json side_report(const TestResult& r, const SideResult& s,
                           const std::vector<std::pair<Category, double>>& explain_delta) {
    nlohmann::json j = side_summary(s);
    add_explain_per_unit(j, r, s, explain_delta);
    return j;
}

// "us/KB" -> "us_per_kb": a unit as a name's tail.
std::string unit_suffix(Workload test) {
    std::string u = explain_unit(test);
    std::string out;
    for (char c : u) out += c == '/' ? std::string("_per_") : std::string(1, static_cast<char>(std::tolower(c)));
    return out;
}

// A stream test's figures, one line each for the test's own (encoded only) and for the load beside it
// (--under-load, which zcperf-mpi's ranks send to rank 0: decoded, so bounded).
template <class S>
auto stream_figure_fields() {
    return std::make_tuple(number("message_size", &S::message_size, uint64_t{0}, kMaxMessageSize),
                           number("streams", &S::streams, 0, kMaxStreams), number("bytes", &S::bytes),
                           number("elapsed_s", &S::elapsed_s, 0.0, 2 * kMaxDurationS),
                           number("throughput_gbps", &S::throughput_gbps, 0.0, 1e9));
}

const auto kIterationFields = std::make_tuple(
    number("count", &IterationStats::iterations), number("confidence_level_pct", &IterationStats::level_pct),
    number("width_goal_pct", &IterationStats::width_goal_pct),
    number("throughput_width_pct", &IterationStats::throughput_width_pct), str("metric", &IterationStats::metric),
    number("met", &IterationStats::met));
// The iteration statistics, and beside them each -i repetition's result_figures (zcperf compare's samples).
nlohmann::json iterations_json(const TestResult& r) {
    nlohmann::json j = encoded(r.iterations, kIterationFields);
    j[kRoundsKey] = r.round_figures;
    if (!r.round_invocations.empty()) j[kRoundInvocationsKey] = r.round_invocations;
    return j;
}

const auto kBaselineFields =
    std::make_tuple(str("transport", &BaselineRatio::transport), number("throughput_ratio", &BaselineRatio::throughput),
                    number("local_service_demand_ratio", &BaselineRatio::local_service_demand),
                    number("remote_service_demand_ratio", &BaselineRatio::remote_service_demand));

using TR = TestResult;
const auto kTestResultFields = std::tuple_cat(
    std::make_tuple(named("transport", &TR::transport, transport_name, transport_from_name),
                    named("test", &TR::test, workload_name, workload_from_name),
                    named("rx", &TR::rx, rx_mode_name, rx_mode_from_name)),
    stream_figure_fields<TR>(),
    std::make_tuple(
        number("setup_ms", &TR::setup_ms), derived<TR>(kIterationsKey, iterations_json),
        derived<TR>(kFiguresKey, [](const TR& r) { return result_figures(r); }),
        derived<TR>("baseline",
                    [](const TR& r) {
                        return r.baseline.transport.empty() ? nlohmann::json(nullptr)
                                                            : encoded(r.baseline, kBaselineFields);
                    }),
        derived<TR>("local", [](const TR& r) { return side_report(r, r.local, r.baseline.local_explain_delta); }),
        derived<TR>("remote", [](const TR& r) { return side_report(r, r.remote, r.baseline.remote_explain_delta); }),
        list("warnings", &TR::warnings, 0)));

// --bidir only.
const auto kBidirFields = std::make_tuple(derived<TR>("bidir", [](const TR& r) {
    return nlohmann::json{{"with", r.bidir_with}, {"sum_gbps", r.bidir_sum_gbps}};
}));
// --under-load only: the load's own stream test, beside the transaction test it ran with.
using LB = LoadBeside;
const auto kLoadBesideFields = std::tuple_cat(
    std::make_tuple(number("asked", &LB::asked), str("transport", &LB::transport, 64)), stream_figure_fields<LB>(),
    std::make_tuple(number("local_cpu_util_pct", &LB::local_cpu_pct, 0.0, 100.0),
                    number("remote_cpu_util_pct", &LB::remote_cpu_pct, 0.0, 100.0),
                    cpu_list("local_cpus", &LB::local_cpus), cpu_list("remote_cpus", &LB::remote_cpus),
                    number("lead_s", &LB::lead_s, -kMaxDurationS, kMaxDurationS),
                    number("tail_s", &LB::tail_s, -kMaxDurationS, kMaxDurationS)));
const auto kUnderLoadFields = std::make_tuple(object("under_load", &TR::under_load, kLoadBesideFields));
// --interval only.
const auto kIntervalFields =
    std::make_tuple(number("interval_s", &TR::interval_s), derived<TR>("intervals", [](const TR& r) {
                        nlohmann::json rows = nlohmann::json::array();
                        for (const auto& row : r.intervals) rows.push_back(to_json(row, r.test));
                        return rows;
                    }));

}  // namespace

nlohmann::json result_figures(const TestResult& r) {
    const bool msg = is_message_test(r.test);
    const std::string unit = unit_suffix(r.test);
    nlohmann::json f = nlohmann::json::object();
    if (msg)
        f[is_transaction_test(r.test) ? "transactions_per_s" : "messages_per_s"] = r.messages.messages_per_s;
    else
        f[name_of(kTestResultFields, &TestResult::throughput_gbps)] = r.throughput_gbps;
    f["local_service_demand_" + unit] = msg ? r.messages.local_sd_us : r.local.service_demand_us_per_kb();
    f["remote_service_demand_" + unit] = msg ? r.messages.remote_sd_us : r.remote.service_demand_us_per_kb();
    f["local_proc_service_demand_" + unit] =
        msg ? r.messages.local_proc_sd_us : r.local.process_service_demand_us_per_kb();
    f["remote_proc_service_demand_" + unit] =
        msg ? r.messages.remote_proc_sd_us : r.remote.process_service_demand_us_per_kb();
    if (is_transaction_test(r.test) && r.messages.rtt.samples > 0) {
        f["rtt_p50_us"] = r.messages.rtt.p50_us;
        f["rtt_p90_us"] = r.messages.rtt.p90_us;
        f["rtt_p99_us"] = r.messages.rtt.p99_us;
        f["rtt_p99.9_us"] = r.messages.rtt.p999_us;
    }
    for (const auto* s : {&r.local, &r.remote}) {
        if (!s->explain.ran) continue;
        const std::string side = s == &r.local ? "local_explain_" : "remote_explain_";
        double units = explain_units(r, *s);
        for (size_t i = 0; i < kCategoryCount; ++i)
            f[side + category_names()[i].key + "_" + unit] = explain_per_unit(s->explain.category_s[i], units);
    }
    return f;
}

nlohmann::json to_json(const LoadBeside& l) { return encoded(l, kLoadBesideFields); }

LoadBeside load_beside_from_json(const nlohmann::json& j) {
    LoadBeside l;
    decode_fields(j, l, kLoadBesideFields);
    return l;
}

nlohmann::json to_json(const TestResult& r) {
    nlohmann::json j = encoded(r, kTestResultFields);
    if (is_message_test(r.test)) j[workload_name(r.test)] = to_json(r.messages, r.test, r.message_size);
    if (!r.bidir_with.empty()) encode_fields(j, r, kBidirFields);
    if (r.interval_s > 0) encode_fields(j, r, kIntervalFields);
    if (r.under_load.asked) encode_fields(j, r, kUnderLoadFields);
    return j;
}

}  // namespace zc
