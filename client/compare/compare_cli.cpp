#include "compare_cli.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "compare.hpp"
#include "core/transport_registry.hpp"
#include "html/html_page.hpp"

namespace zc {

namespace {

// Its examples name rows of this build (core/transport_registry.hpp's example_rows).
std::string compare_description() {
    return "zcperf compare BASE NEW: which figures changed beyond noise between two sets of runs (before and after a "
           "kernel, a NIC or sysctl setting, another host). BASE and NEW are zcperf -o json reports, each REPORT.json "
           "or "
           "A1.json,A2.json,A3.json (each file one invocation; a run with --invocations N holds N). Tests match by "
           "transport, test, message size and --rx. For each: throughput (rr: transactions/s), both sides' service "
           "demand and the test threads' own (proc), rr's RTT percentiles and, with --explain, each category per unit: "
           "NEW / BASE with a 95 % interval (Welch's t on the logs of each invocation's mean, so the run-to-run noise "
           "is in it: give 3 or more invocations a side, each with -i 3 or more; a side with one invocation gets no "
           "verdict, as its run-to-run noise is unknown), or NEW - BASE where a side has a zero. Verdict: higher or "
           "lower (changed at a false discovery rate of 5 % over all the figures, Benjamini-Hochberg) or not "
           "resolved.\n\n" +
           fmt::format(
               "zcperf compare --paths A:B RUNS: path A against path B in the same runs, paired by round (e.g. "
               "{1}:{0}; {0}/zerocopy:{0} for --rx zerocopy).\n\nExample:\n  for i in 1 2 3; do zcperf -T "
               "{0},{1} --explain -i 3,3 -o json > before$i.json; done\n  (change something, run again into "
               "after1..3.json)\n  zcperf compare before1.json,before2.json,before3.json "
               "after1.json,after2.json,after3.json\n  zcperf compare --paths {1}:{0} before1.json,before2.json,"
               "before3.json",
               example_rows().copy, example_rows().zerocopy);
}

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
    std::string output = "human", html, paths;
    double fdr = kDefaultFdr;
    OptionRows rows;
    rows.push_back(value("sides", sides,
                         "BASE NEW: each a zcperf -o json report, or several joined by commas (each an invocation); "
                         "with --paths, one: the runs")
                       .value_kind("BASE NEW"));
    rows.push_back(value("--paths", paths,
                         fmt::format("A:B: path A against path B of the same runs, paired by round ({1}:{0}; "
                                     "TRANSPORT/RX for a receive mode, {0}/zerocopy:{0})",
                                     example_rows().copy, example_rows().zerocopy))
                       .value_kind("A:B"));
    rows.push_back(value_in("--fdr", fdr, Bounds<double>{0.0001, 0.5},
                            "Q: the false discovery rate the verdicts hold over all the figures (Benjamini-Hochberg)")
                       .value_kind("Q"));
    rows.push_back(value("-o,--output", output, "report format: human, json or csv").choose({"human", "json", "csv"}));
    rows.push_back(html_option(html));
    CLI::App app{compare_description(), "zcperf compare"};
    if (int rc = parse_rows(app, rows, argc, argv,
                            [&] {
                                if (!paths.empty() && sides.size() != 1)
                                    throw std::invalid_argument(
                                        "--paths A:B takes one set of runs (REPORT.json or A1.json,A2.json), "
                                        "whose tests hold both paths");
                                if (!paths.empty() && !html.empty())
                                    throw std::invalid_argument(
                                        "--html draws two sides; for --paths, read the report (-o human, json "
                                        "or csv)");
                                if (paths.empty() && sides.size() != 2)
                                    throw std::invalid_argument(
                                        "give two sides, BASE and NEW (each REPORT.json or A1.json,A2.json)");
                            });
        rc >= 0)
        return rc;
    try {
        CompareSide base = load_side(paths.empty() ? "base" : "runs", sides[0]);
        CompareSide next = paths.empty() ? load_side("new", sides[1]) : base;
        CompareResult r = paths.empty() ? compare_sides(base, next, fdr) : compare_paths(base, paths, fdr);
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
