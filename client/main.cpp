// zcperf: the client. Drives tests against zcservers (or an embedded one on loopback) and prints
// one report with both sides' numbers.
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>

#include "bidir.hpp"
#include "cli.hpp"
#include "compare_cli.hpp"
#include "control_client.hpp"
#include "embedded_server.hpp"
#include "gpu_checks.hpp"
#include "baseline.hpp"
#include "iterations.hpp"
#include "report/explain_report.hpp"
#include "report/report_writer.hpp"
#include "html/html_page.hpp"
#include "report/samples_report.hpp"
#include "report/histogram_log.hpp"
#include "run_driver.hpp"
#include "topology_report.hpp"
#include "under_load.hpp"

namespace {

void on_sigint(int) { zc::g_interrupted.store(true); }

zc::TestResult run_with_iterations(zc::ControlClient& control, const zc::TestSpec& spec, const zc::ConfidenceGoal& goal,
                                   zc::ReportWriter& writer) {
    std::vector<zc::TestResult> runs;
    auto on_interval = [&](const zc::IntervalRow& row) { writer.interval(spec, row); };
    do {
        runs.push_back(zc::run_test(control, spec, {on_interval, static_cast<int>(runs.size()) + 1, {}}));
    } while (!zc::enough_iterations(goal, zc::tracked_series(runs)));
    return zc::merge_iterations(runs, goal);
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && std::string_view(argv[1]) == "compare") return zc::compare_main(argc - 1, argv + 1);
    zc::ClientOptions opt;
    if (int rc = zc::parse_client_options(argc, argv, opt); rc >= 0) return rc;

    std::optional<zc::SharedSecret> secret;
    if (!opt.auth_key_file.empty()) {
        try {
            secret = zc::SharedSecret::from_file(opt.auth_key_file);
        } catch (const std::exception& e) {
            std::cerr << "zcperf: " << e.what() << "\n";
            return 2;
        }
    }
    const zc::SharedSecret* key = secret ? &*secret : nullptr;
    if (opt.topology) {
        std::vector<zc::HostInfo> remotes;
        try {
            for (const auto& s : opt.servers) {
                zc::ControlClient c(zc::parse_endpoint(s, opt.port), std::chrono::milliseconds(opt.connect_timeout_ms),
                                    key);
                remotes.push_back(c.welcome().host);
            }
        } catch (const std::exception& e) {
            std::cerr << "zcperf: " << e.what() << "\n";
            return 1;
        }
        zc::write_topology(std::cout, opt.output, zc::probe_host(), remotes);
        return 0;
    }
    if (opt.gpu_copy_bandwidth) return zc::write_gpu_copy_bandwidth(std::cout, std::cerr, opt.output);
    std::unique_ptr<zc::EmbeddedServer> embedded;
    std::vector<zc::Endpoint> servers;
    try {
        if (opt.servers.empty()) {
            const char* loopback = opt.family == AF_INET6 ? "::1" : "127.0.0.1";  // -6: over IPv6's loopback
            embedded = std::make_unique<zc::EmbeddedServer>(loopback);            // forks: before any thread exists
            servers.push_back({loopback, embedded->port()});
        }
        for (const auto& s : opt.servers) servers.push_back(zc::parse_endpoint(s, opt.port));
        for (auto& s : servers) s.family = opt.family;  // -4/-6: control and data (data_setup follows it)
    } catch (const std::exception& e) {
        std::cerr << "zcperf: " << e.what() << "\n";
        return 2;
    }
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    // The output files the options name, opened before any test: one that cannot be written ends the run.
    auto open_output = [](std::ofstream& f, const std::string& path, const char* option) {
        if (path.empty()) return true;
        f.open(path);
        if (!f) std::cerr << "zcperf: cannot write " << option << " " << path << ": " << std::strerror(errno) << "\n";
        return static_cast<bool>(f);
    };
    std::ofstream stacks, samples, histogram_log, csv_intervals;
    if (!open_output(stacks, opt.explain_stacks, "--explain-stacks") ||
        !open_output(samples, opt.samples_file, "--samples") ||
        !open_output(histogram_log, opt.histogram_log, "--histogram-log") ||
        !open_output(csv_intervals, opt.csv_intervals, "--csv-intervals"))
        return 2;
    if (samples.is_open()) zc::write_samples_header(samples);
    const auto log_start = std::chrono::system_clock::now();  // --histogram-log's StartTime
    auto since_log_start = [&] {
        return std::chrono::duration<double>(std::chrono::system_clock::now() - log_start).count();
    };
    if (histogram_log.is_open())
        zc::write_histogram_log_header(histogram_log,
                                       std::chrono::duration<double>(log_start.time_since_epoch()).count());
    std::unique_ptr<zc::ReportWriter> writer = zc::make_report_writer(opt.output, std::cout);
    if (csv_intervals.is_open()) {
        std::vector<std::unique_ptr<zc::ReportWriter>> both;
        both.push_back(std::move(writer));
        both.push_back(zc::make_csv_intervals_report(csv_intervals));
        writer = zc::make_tee_report(std::move(both));
    }
    if (!opt.html.empty()) {
        std::vector<std::unique_ptr<zc::ReportWriter>> both;
        both.push_back(std::move(writer));
        try {
            both.push_back(zc::make_html_report(opt.html));
        } catch (const std::exception& e) {
            std::cerr << "zcperf: " << e.what() << "\n";
            return 2;
        }
        writer = zc::make_tee_report(std::move(both));
    }
    // reverse: --bidir's maerts twins; loads: --under-load's stream tests (each a second connection to its server)
    std::vector<std::unique_ptr<zc::ControlClient>> controls, reverse, loads;
    const bool under_load =
        std::any_of(opt.under_load_counts.begin(), opt.under_load_counts.end(), [](int n) { return n > 0; });
    try {
        for (const auto& ep : servers) {
            controls.push_back(
                zc::connect_control(ep, std::chrono::milliseconds(opt.connect_timeout_ms), key, std::cerr));
            if (opt.bidir)
                reverse.push_back(
                    zc::connect_control(ep, std::chrono::milliseconds(opt.connect_timeout_ms), key, std::cerr));
            if (under_load)
                loads.push_back(
                    zc::connect_control(ep, std::chrono::milliseconds(opt.connect_timeout_ms), key, std::cerr));
        }
    } catch (const std::exception& e) {
        std::cerr << "zcperf: " << e.what() << "\n";
        return 1;
    }

    for (const auto& c : controls) {
        if (auto problem = zc::remote_memory_problem(c->welcome().host, opt.remote.buffer); !problem.empty()) {
            std::cerr << "zcperf: " << problem << "\n";
            return 1;
        }
        if (under_load) {  // refused before any test, not after the sweep's first ran alone
            if (auto why = zc::under_load_support_problem(c->welcome()); !why.empty()) {
                std::cerr << "zcperf: " << c->server().host << ": " << why << "\n";
                return 1;
            }
        }
        // Said now, before any test: the run goes on with this side's intervals only.
        if (auto note = zc::interval_support_problem(opt.params, c->welcome()); !note.empty())
            std::cerr << "zcperf: " << c->server().host << ": " << note << "\n";
    }

    zc::ReportHeader header;
    header.software = "zcperf " ZCPERF_VERSION;
    header.command_line = opt.command_line;
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    header.local_host = name;
    if (utsname u{}; uname(&u) == 0) header.local_kernel = u.release;
    for (const auto& c : controls) {
        std::string sep = header.server.empty() ? "" : ", ";
        header.server += sep + c->server().host + ":" + std::to_string(c->server().port);
        header.remote_host += sep + c->welcome().host.hostname;
        header.remote_software += sep + c->welcome().software;
        header.remote_kernel += sep + c->welcome().host.kernel;
    }
    header.embedded_server = embedded != nullptr;
    writer->begin(header);

    int status = 0;
    auto specs = zc::expand_tests(opt);
    try {
        for (size_t c = 0; c < controls.size(); ++c) {
            auto& control = controls[c];
            std::vector<zc::TestResult> done;
            for (const auto& spec : specs) {
                if (opt.bidir) {
                    auto [forward, back] = zc::run_bidir(*control, *reverse[c], spec);
                    writer->add(forward);
                    writer->add(back);
                    continue;
                }
                zc::TestResult r = spec.load.streams > 0 ? zc::run_under_load(*control, *loads[c], spec)
                                                         : run_with_iterations(*control, spec, opt.goal, *writer);
                r.under_load.asked = spec.load.asked;  // a sweep's 0: the test alone, reported as such
                zc::compare_with_baseline(r, done, opt.transports.front(), opt.rx_modes.front());
                writer->add(r);
                if (stacks.is_open())
                    zc::write_folded_stacks(stacks, r, specs.size() > 1 ? zc::explain_test_label(r) : std::string());
                if (samples.is_open()) zc::write_samples(samples, r);
                if (histogram_log.is_open()) {  // the test's interval ended about now (its results just came in)
                    const double start_s = since_log_start() - r.messages.elapsed_s;
                    zc::write_histogram_log_line(histogram_log, r, std::max(0.0, start_s), specs.size() > 1);
                }
                done.push_back(std::move(r));
            }
        }
    } catch (const zc::InterruptedError&) {
        writer->error("interrupted: the test was stopped on both sides");
        std::cerr << "zcperf: interrupted; the running test was stopped on both sides\n";
        status = 130;
    } catch (const zc::ServerError& e) {
        writer->error(std::string("the server refused: ") + e.what());
        std::cerr << "zcperf: the server refused: " << e.what() << "\n";
        status = 1;
    } catch (const std::exception& e) {
        writer->error(e.what());
        std::cerr << "zcperf: " << e.what() << "\n";
        status = 1;
    }
    writer->end();
    return status;
}
