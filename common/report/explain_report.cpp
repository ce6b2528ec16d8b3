#include "report/explain_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"

namespace zc {

namespace {

double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

// Categories by size, largest first, those under 0.1 % of the busy time left out of a line.
std::vector<size_t> by_size(const std::array<double, kCategoryCount>& s, double total) {
    std::vector<size_t> order;
    for (size_t i = 0; i < kCategoryCount; ++i)
        if (s[i] > 0 && pct(s[i], total) >= 0.1) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s[a] > s[b]; });
    return order;
}

// The three sources of the sampled CPUs' busy time over the interval, each against the exact one (the
// idle clocks count busy + steal, as the sampler does: its time-weighted samples include stolen time).
std::string busy_sources_line(const ExplainSide& e) {
    const bool cpuidle = e.cpuidle_absent.empty();
    const double exact = cpuidle ? e.cpuidle_busy_s : e.idle_clock_busy_s;
    auto vs = [&](double v) { return exact > 0 ? fmt::format(" ({:+.1f}%)", pct(v - exact, exact)) : std::string(); };
    std::string line =
        fmt::format("      busy CPU-s: sampled {:.2f}{}, /proc/stat busy {:.2f} + steal {:.2f}{}", e.busy_s,
                    vs(e.busy_s), e.stat_busy_s, e.stat_steal_s, vs(e.stat_busy_s + e.stat_steal_s));
    if (e.idle_clock_busy_s > 0)
        line += fmt::format(", by /proc/stat's idle clock {:.2f}{}", e.idle_clock_busy_s,
                            cpuidle ? vs(e.idle_clock_busy_s) : std::string(" (the reference)"));
    line += cpuidle ? fmt::format(", by cpuidle {:.2f} (the reference)", e.cpuidle_busy_s)
                    : fmt::format(", cpuidle absent ({})", e.cpuidle_absent);
    return line;
}

}  // namespace

std::vector<std::string> explain_lines(const TestResult& r, const SideResult& s, const char* side) {
    const ExplainSide& e = s.explain;
    if (!e.ran) {
        if (e.problem.empty()) return {};
        return {fmt::format("    explain {}: {}", side, e.problem)};
    }
    std::vector<std::string> out;
    double units = explain_units(r, s);
    const char* unit = explain_unit(r.test);
    out.push_back(fmt::format("    explain {}: {} {} Hz on CPUs {}-{}, {} busy of {} samples{}; sampler {:.3f} CPU-s",
                              side, e.event, e.hz, e.cpus.empty() ? 0 : e.cpus.front(),
                              e.cpus.empty() ? 0 : e.cpus.back(), e.busy_samples, e.samples,
                              e.lost ? fmt::format(", {} LOST", e.lost) : "", e.sampler_cpu_s));
    out.push_back(busy_sources_line(e));
    std::string cats = fmt::format("      {} {:.3f} =", unit, explain_per_unit(e.busy_s, units));
    for (size_t i : by_size(e.category_s, e.busy_s)) {
        cats += fmt::format(" {} {:.3f} ({:.0f}±{:.1f}%),", category_names()[i].label,
                            explain_per_unit(e.category_s[i], units), pct(e.category_s[i], e.busy_s),
                            share_error_pct(e.category_samples[i], e.busy_samples));
    }
    if (cats.back() == ',') cats.pop_back();
    out.push_back(cats);
    // The categories add up to the sampled busy time; the SD is /proc/stat's busy over all CPUs.
    if (s.cpu.busy_cpu_s > 0)
        out.push_back(
            fmt::format("      the categories add up to the sampled busy time: {:.3f} {}, {:+.1f}% from the SD "
                        "({:.3f}, /proc/stat's busy)",
                        explain_per_unit(e.busy_s, units), unit, pct(e.busy_s - s.cpu.busy_cpu_s, s.cpu.busy_cpu_s),
                        explain_per_unit(s.cpu.busy_cpu_s, units)));
    std::string top = "      top:";
    for (const auto& f : e.top) {
        if (pct(f.cpu_s, e.busy_s) < 1.0) break;
        top += fmt::format(" {}{} {:.0f}% ({}),", f.name, f.module.empty() ? "" : " [" + f.module + "]",
                           pct(f.cpu_s, e.busy_s),
                           f.category == Category::inherit ? "its callers'" : category_label(f.category));
    }
    if (top.back() == ',') top.pop_back();
    out.push_back(top);
    std::string cpus = "      per CPU:";
    for (const auto& c : e.per_cpu) {
        if (pct(c.busy_s, e.busy_s) < 1.0) continue;
        std::string parts;
        auto order = by_size(c.category_s, c.busy_s);
        for (size_t k = 0; k < order.size() && k < 3; ++k)
            parts += fmt::format("{}{} {:.0f}%", k ? ", " : "", category_names()[order[k]].label,
                                 pct(c.category_s[order[k]], c.busy_s));
        cpus += fmt::format(" cpu{} {:.2f} s ({}),", c.cpu, c.busy_s, parts);
    }
    if (cpus.back() == ',') cpus.pop_back();
    out.push_back(cpus);
    return out;
}

std::string explain_delta_text(const TestResult& r, const std::vector<std::pair<Category, double>>& delta) {
    std::string out;
    const char* unit = explain_unit(r.test);
    for (const auto& [c, v] : delta) {
        if (std::abs(v) < 0.0005) continue;
        // U+2212 minus, as a printed table would have it
        out += fmt::format("{}{} {}{:.3f}", out.empty() ? "" : ", ", category_label(c), v < 0 ? "\u2212" : "+",
                           std::abs(v));
    }
    return out.empty() ? out : out + " " + unit;
}

std::string explain_test_label(const TestResult& r) {
    return fmt::format("{}{} {} {}{}", transport_name(r.transport),
                       r.rx == RxMode::copy ? "" : std::string("/rx-") + rx_mode_name(r.rx), workload_name(r.test),
                       format_size(r.message_size),
                       r.under_load.asked ? fmt::format(" under-load {}", r.under_load.streams) : "");
}

void write_folded_stacks(std::ostream& out, const TestResult& r, const std::string& label) {
    for (const auto* s : {&r.local, &r.remote}) {
        const char* side = s == &r.local ? "local" : "remote";
        for (const auto& [stack, n] : s->explain.stacks)
            out << (label.empty() ? "" : label + ";") << side << ";" << stack << " " << n << "\n";
    }
    out.flush();
}

std::string explain_csv_header(const std::string& prefix) {
    std::string out = prefix + "explain_unit," + prefix + "explain_sampled_busy_cpu_s," + prefix +
                      "explain_proc_stat_busy_cpu_s," + prefix + "explain_per_unit";
    for (const auto& n : category_names()) out += "," + prefix + "explain_" + n.key;
    return out;
}

std::string explain_csv_cells(const TestResult& r, const SideResult& s) {
    const ExplainSide& e = s.explain;
    if (!e.ran) return std::string(3 + 1 + kCategoryCount, ',').substr(1);  // empty cells
    double units = explain_units(r, s);
    std::string out = fmt::format("{},{:.4f},{:.4f},{:.5f}", explain_unit(r.test), e.busy_s, e.stat_busy_s,
                                  explain_per_unit(e.busy_s, units));
    for (double v : e.category_s) out += fmt::format(",{:.5f}", explain_per_unit(v, units));
    return out;
}

}  // namespace zc
