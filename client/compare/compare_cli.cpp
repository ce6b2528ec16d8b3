#include "compare_cli.hpp"

#include <fstream>
#include <iostream>

#include "compare.hpp"
#include "html/html_page.hpp"

namespace zc {

namespace {

constexpr const char* kCompareDescription =
    "zcperf compare BASE NEW: which figures changed beyond noise between two sets of runs (before and after a "
    "kernel, a NIC or sysctl setting, another host). BASE and NEW are zcperf -o json reports, each REPORT.json or "
    "A1.json,A2.json (their runs pooled). Tests match by transport, test, message size and --rx. For each: "
    "throughput (rr: transactions/s), both sides' service demand and the test threads' own (proc), rr's RTT "
    "percentiles and, with --explain, each category per unit: NEW / BASE with a 95 % interval (Welch's t on "
    "the log ratios, each side's repetitions its samples: run with -i 3 or more; one round gives no interval), "
    "or NEW - BASE where a side has a zero. Verdict: higher or lower (the interval excludes no change) or not "
    "resolved.\n\nExample:\n  zcperf -T tcp,tcp-msgzc --explain -i 3,3 -o json > before.json\n  (change "
    "something)\n  zcperf -T tcp,tcp-msgzc --explain -i 3,3 -o json > after.json\n  zcperf compare before.json "
    "after.json --html compare.html";

}  // namespace

OptionRow html_option(std::string& file) {
    return value("--html", file,
                 "FILE: also write one self-contained HTML page there (nothing fetched when viewed: mail it, attach "
                 "it): the results, each side's --explain categories as stacked bars, the -D intervals, the rr "
                 "latencies and interactive flame graphs of the sampled stacks (with --explain; click to zoom, "
                 "search, hover names the category), a differential one between two paths or runs")
        .value_kind("FILE");
}

int compare_main(int argc, char** argv) {
    std::vector<std::string> sides;
    std::string output = "human", html;
    OptionRows rows;
    rows.push_back(value("sides", sides, "BASE NEW: each a zcperf -o json report, or several joined by commas")
                       .value_kind("BASE NEW"));
    rows.push_back(value("-o,--output", output, "report format: human, json or csv").choose({"human", "json", "csv"}));
    rows.push_back(html_option(html));
    CLI::App app{kCompareDescription, "zcperf compare"};
    if (int rc = parse_rows(app, rows, argc, argv,
                            [&] {
                                if (sides.size() != 2)
                                    throw std::invalid_argument(
                                        "give two sides, BASE and NEW (each REPORT.json or A1.json,A2.json)");
                            });
        rc >= 0)
        return rc;
    try {
        CompareSide base = load_side("base", sides[0]), next = load_side("new", sides[1]);
        CompareResult r = compare_sides(base, next);
        nlohmann::json j = to_json(r, base, next);
        if (output == "json")
            std::cout << j.dump(2) << "\n";
        else if (output == "csv")
            write_compare_csv(std::cout, r);
        else
            write_compare_human(std::cout, r, base, next);
        if (!html.empty()) write_html_page(html, compare_page_data(j, base.reports, next.reports));
    } catch (const std::exception& e) {
        std::cerr << "zcperf compare: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace zc
