#include "protocol/explain_json.hpp"

#include "protocol/json_fields.hpp"

namespace zc {

namespace {

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
        if (category_from_key(key, c)) out[static_cast<size_t>(c)] = value_as<double>(v, "category_s");
    }
    return out;
}

const nlohmann::json& list(const nlohmann::json& j, const char* name, size_t max) {
    static const nlohmann::json empty = nlohmann::json::array();
    auto it = j.find(name);
    if (it == j.end()) return empty;
    if (!it->is_array() || it->size() > max)
        throw ProtocolError(std::string("field '") + name + "' must be an array of at most " + std::to_string(max));
    return *it;
}

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
    if (!e.ran) return {{"ran", false}, {"problem", e.problem}};
    nlohmann::json top = nlohmann::json::array();
    for (const auto& f : e.top)
        top.push_back(
            {{"function", f.name}, {"module", f.module}, {"category", category_key(f.category)}, {"cpu_s", f.cpu_s}});
    nlohmann::json per = nlohmann::json::array();
    for (const auto& c : e.per_cpu)
        per.push_back({{"cpu", c.cpu}, {"busy_s", c.busy_s}, {"category_s", categories_json(c.category_s)}});
    nlohmann::json j = {{"ran", true},
                        {"event", e.event},
                        {"hz", e.hz},
                        {"period_s", e.period_s},
                        {"samples", e.samples},
                        {"busy_samples", e.busy_samples},
                        {"lost_samples", e.lost},
                        {"throttled", e.throttled},
                        {"sampled_busy_cpu_s", e.busy_s},
                        {"proc_stat_busy_cpu_s", e.stat_busy_s},
                        {"proc_stat_steal_cpu_s", e.stat_steal_s},
                        {"sampler_cpu_s", e.sampler_cpu_s},
                        {"cpus", e.cpus},
                        {"category_s", categories_json(e.category_s)},
                        {"top_functions", top},
                        {"per_cpu", per}};
    if (!e.stacks.empty()) {
        nlohmann::json st = nlohmann::json::array();
        for (const auto& [stack, n] : e.stacks) st.push_back({stack, n});
        j["stacks"] = st;
        j["stacks_left_out_samples"] = e.stacks_left_out;
    }
    return j;
}

ExplainSide explain_side_from_json(const nlohmann::json& j) {
    try {
        ExplainSide e;
        e.ran = field<bool>(j, "ran");
        if (!e.ran) {
            e.problem = field<std::string>(j, "problem");
            return e;
        }
        e.event = field<std::string>(j, "event");
        e.hz = field_in<int>(j, "hz", 0, 1000000);
        e.period_s = field_in<double>(j, "period_s", 0, 1);
        e.samples = field<uint64_t>(j, "samples");
        e.busy_samples = field<uint64_t>(j, "busy_samples");
        e.lost = field<uint64_t>(j, "lost_samples");
        e.throttled = field<uint64_t>(j, "throttled");
        e.busy_s = field_in<double>(j, "sampled_busy_cpu_s", 0, 1e9);
        e.stat_busy_s = field_in<double>(j, "proc_stat_busy_cpu_s", 0, 1e9);
        e.stat_steal_s = j.contains("proc_stat_steal_cpu_s") ? field_in<double>(j, "proc_stat_steal_cpu_s", 0, 1e9)
                                                             : 0.0;  // a server before steal was reported
        e.sampler_cpu_s = field_in<double>(j, "sampler_cpu_s", 0, 1e9);
        for (const auto& c : list(j, "cpus", 65536)) e.cpus.push_back(value_as<int>(c, "cpus"));
        e.category_s = categories_from_json(j.at("category_s"));
        for (const auto& f : list(j, "top_functions", 256)) {
            ExplainFunction x;
            x.name = field<std::string>(f, "function");
            x.module = field<std::string>(f, "module");
            if (!category_from_key(field<std::string>(f, "category"), x.category)) x.category = Category::other;
            x.cpu_s = field<double>(f, "cpu_s");
            e.top.push_back(std::move(x));
        }
        for (const auto& c : list(j, "per_cpu", 65536)) {
            ExplainCpu x;
            x.cpu = field<int>(c, "cpu");
            x.busy_s = field<double>(c, "busy_s");
            x.category_s = categories_from_json(c.at("category_s"));
            e.per_cpu.push_back(x);
        }
        for (const auto& s : list(j, "stacks", kMaxStacks)) {
            if (!s.is_array() || s.size() != 2) throw ProtocolError("field 'stacks' holds a bad entry");
            e.stacks.emplace_back(value_as<std::string>(s[0], "stacks"), value_as<uint64_t>(s[1], "stacks"));
        }
        e.stacks_left_out = field_or<uint64_t>(j, "stacks_left_out_samples", 0);
        return e;
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError(std::string("malformed explain result: ") + e.what());
    }
}

}  // namespace zc
