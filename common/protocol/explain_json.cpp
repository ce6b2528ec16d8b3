#include "protocol/explain_json.hpp"

#include <limits>

#include "protocol/field_table.hpp"
#include "protocol/json_fields.hpp"

namespace zc {

namespace {

constexpr uint64_t kAnyCount = std::numeric_limits<uint64_t>::max();
constexpr double kMaxCpuS = 1e9;
constexpr double kMaxMonotonicS = 1e10;             // CLOCK_MONOTONIC: seconds since boot, three centuries at most
constexpr const char* kCategoryKey = "category_s";  // named in the table and in its value's errors
constexpr const char* kStacksKey = "stacks";

nlohmann::json categories_json(const std::array<double, kCategoryCount>& s) {
    nlohmann::json j = nlohmann::json::object();
    for (size_t i = 0; i < kCategoryCount; ++i) j[category_names()[i].key] = s[i];
    return j;
}

// Categories this side does not know (a newer peer's) are left out of the sum, never guessed.
std::array<double, kCategoryCount> categories_from_json(const nlohmann::json& j) {
    std::array<double, kCategoryCount> out{};
    if (!j.is_object() || j.size() > 64) throw ProtocolError("field 'category_s' must be a small object");
    for (const auto& [key, v] : j.items()) {
        Category c;
        if (category_from_key(key, c)) out[static_cast<size_t>(c)] = value_as<double>(v, kCategoryKey);
    }
    return out;
}

nlohmann::json category_samples_json(const ExplainSide& e) {
    nlohmann::json j = nlohmann::json::object();
    for (size_t i = 0; i < kCategoryCount; ++i) j[category_names()[i].key] = e.category_samples[i];
    return j;
}
void category_samples_from_json(const nlohmann::json& v, ExplainSide& e) {
    if (!v.is_object() || v.size() > 64) throw ProtocolError("field 'category_samples' must be a small object");
    for (const auto& [key, n] : v.items()) {
        Category c;
        if (category_from_key(key, c)) e.category_samples[static_cast<size_t>(c)] = value_as<uint64_t>(n, key);
    }
}

// A category's name: one this side does not know (a newer peer's) is "other kernel", never guessed.
Category category_or_other(const std::string& key) {
    Category c = Category::other;
    return category_from_key(key, c) ? c : Category::other;
}

template <class S>
constexpr auto category_field(std::array<double, kCategoryCount> S::*member) {
    return custom<S>(
        kCategoryKey, [member](const S& s) { return categories_json(s.*member); },
        [member](const nlohmann::json& v, S& s) { s.*member = categories_from_json(v); });
}

const auto kFunctionFields =
    std::make_tuple(text("function", &ExplainFunction::name, 512, "a function name (512 bytes)"),
                    text("module", &ExplainFunction::module, 256, "a module name (256 bytes)"),
                    named("category", &ExplainFunction::category, category_key, category_or_other),
                    number("cpu_s", &ExplainFunction::cpu_s, 0.0, kMaxCpuS));

const auto kCpuFields =
    std::make_tuple(number("cpu", &ExplainCpu::cpu, 0, 65535), number("busy_s", &ExplainCpu::busy_s, 0.0, kMaxCpuS),
                    category_field(&ExplainCpu::category_s));

// Folded stacks as [stack, samples] pairs; left out when none were kept.
nlohmann::json stacks_json(const ExplainSide& e) {
    if (e.stacks.empty()) return nullptr;
    nlohmann::json st = nlohmann::json::array();
    for (const auto& [stack, n] : e.stacks) st.push_back({stack, n});
    return st;
}
void stacks_from_json(const nlohmann::json& v, ExplainSide& e) {
    if (!v.is_array() || v.size() > kMaxStacks)
        throw ProtocolError("field 'stacks' must be an array of at most " + std::to_string(kMaxStacks));
    for (const auto& s : v) {
        if (!s.is_array() || s.size() != 2) throw ProtocolError("field 'stacks' holds a bad entry");
        e.stacks.emplace_back(value_as<std::string>(s[0], kStacksKey), value_as<uint64_t>(s[1], kStacksKey));
    }
}

// cpuidle's busy time, left out where there is none (cpuidle_absent says why): absent, never 0.
constexpr const char* kCpuidleKey = "cpuidle_busy_cpu_s";
nlohmann::json cpuidle_json(const ExplainSide& e) {
    return e.cpuidle_absent.empty() ? nlohmann::json(e.cpuidle_busy_s) : nlohmann::json(nullptr);
}
void cpuidle_from_json(const nlohmann::json& v, ExplainSide& e) {
    e.cpuidle_busy_s = value_as<double>(v, kCpuidleKey);
    if (e.cpuidle_busy_s < 0 || e.cpuidle_busy_s > kMaxCpuS)
        throw ProtocolError(std::string("field '") + kCpuidleKey + "' is out of range");
}

// Every side says whether it explained, and why not.
const auto kOutcomeFields = std::make_tuple(number("ran", &ExplainSide::ran, false, true),
                                            text("problem", &ExplainSide::problem, 4096, "a message (4 KiB)"));

// A side that explained: one line per field. `absent`: what an older peer's missing field means.
const auto kExplainFields = std::make_tuple(
    text("event", &ExplainSide::event, 64, "a perf event name"), number("hz", &ExplainSide::hz, 0, 1000000),
    number("period_s", &ExplainSide::period_s, 0.0, 1.0), number("samples", &ExplainSide::samples, 0, kAnyCount),
    number("busy_samples", &ExplainSide::busy_samples, 0, kAnyCount),
    number("lost_samples", &ExplainSide::lost, 0, kAnyCount),
    number("throttled", &ExplainSide::throttled, 0, kAnyCount),
    number("sampled_busy_cpu_s", &ExplainSide::busy_s, 0.0, kMaxCpuS),
    number("proc_stat_busy_cpu_s", &ExplainSide::stat_busy_s, 0.0, kMaxCpuS),
    number("proc_stat_steal_cpu_s", &ExplainSide::stat_steal_s, 0.0, kMaxCpuS, 0.0),       // absent: from before steal
    number("idle_clock_busy_cpu_s", &ExplainSide::idle_clock_busy_s, 0.0, kMaxCpuS, 0.0),  // absent: not measured
    custom<ExplainSide>(kCpuidleKey, cpuidle_json, cpuidle_from_json, true),               // left out: absent
    sent_if(
        +[](const ExplainSide& e) { return !e.cpuidle_absent.empty(); },
        str("cpuidle_absent", &ExplainSide::cpuidle_absent, 512)),
    number("own_kernel_samples", &ExplainSide::own_kernel_samples, 0, kAnyCount, 0),  // absent: an older peer
    number("own_unclassified_samples", &ExplainSide::own_unclassified_samples, 0, kAnyCount, 0),
    number("sampler_cpu_s", &ExplainSide::sampler_cpu_s, 0.0, kMaxCpuS),
    number("sampled_from_monotonic_s", &ExplainSide::sampled_from_s, 0.0, kMaxMonotonicS, 0.0),  // absent: older peer
    number("sampled_until_monotonic_s", &ExplainSide::sampled_until_s, 0.0, kMaxMonotonicS, 0.0),
    cpu_list("cpus", &ExplainSide::cpus), category_field(&ExplainSide::category_s),
    custom<ExplainSide>("category_samples", category_samples_json, category_samples_from_json, true),  // absent: 0s
    optional(list("top_functions", &ExplainSide::top, 256, kFunctionFields)),
    optional(list("per_cpu", &ExplainSide::per_cpu, 65536, kCpuFields)),
    custom<ExplainSide>(kStacksKey, stacks_json, stacks_from_json, true),
    number("stacks_left_out_samples", &ExplainSide::stacks_left_out, 0, kAnyCount, 0));

}  // namespace

bool category_from_key(std::string_view key, Category& out) {
    for (size_t i = 0; i < kCategoryCount; ++i) {
        if (key == category_names()[i].key) {
            out = static_cast<Category>(i);
            return true;
        }
    }
    if (key == "inherit") {
        out = Category::inherit;
        return true;
    }
    return false;
}

nlohmann::json to_json(const ExplainSide& e) {
    nlohmann::json j = nlohmann::json::object();
    encode_fields(j, e, kOutcomeFields);
    if (e.ran) encode_fields(j, e, kExplainFields);
    return j;
}

ExplainSide explain_side_from_json(const nlohmann::json& j) {
    try {
        ExplainSide e;
        decode_fields(j, e, kOutcomeFields);
        if (e.ran) decode_fields(j, e, kExplainFields);
        // an older peer sends 0 for "no cpuidle", or nothing
        if (e.ran && e.cpuidle_absent.empty() && (!j.contains(kCpuidleKey) || e.cpuidle_busy_s == 0))
            e.cpuidle_absent = "the peer did not report it (a zcserver from before this figure had a reason)";
        return e;
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError(std::string("malformed explain result: ") + e.what());
    }
}

}  // namespace zc
