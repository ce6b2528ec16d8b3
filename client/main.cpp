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
#include "explain/rules_report.hpp"
#include "report/explain_report.hpp"
#include "report/report_writer.hpp"
#include "html/html_page.hpp"
#include "report/samples_report.hpp"
#include "report/histogram_log.hpp"
#include "run_driver.hpp"
#include "survey.hpp"
#include "topology_report.hpp"
#include "under_load.hpp"

namespace {

void on_sigint(int) { zc::g_interrupted.store(true); }

// Says why on stderr and gives main its exit status: 2 for what the user asked (an option, a file),
// 1 for what the run met (a server refused, a connection failed).
int refuse(const std::string& why, int status) {
    std::cerr << "zcperf: " << why << "\n";
    return status;
}

// --auth-key: the shared secret every control connection proves. 0, or main's exit status.
int read_auth_key(const zc::ClientOptions& opt, std::optional<zc::SharedSecret>& secret) {
    if (opt.auth_key_file.empty()) return 0;
    try {
        secret = zc::SharedSecret::from_file(opt.auth_key_file);
    } catch (const std::exception& e) {
        return refuse(e.what(), 2);
    }
    return 0;
}

// --topology: this host's and each server's, then nothing else.
int show_topology(const zc::ClientOptions& opt, const zc::SharedSecret* key) {
    std::vector<zc::HostInfo> remotes;
    try {
        for (const auto& s : opt.servers) {
            zc::ControlClient c(zc::parse_endpoint(s, opt.port), std::chrono::milliseconds(opt.connect_timeout_ms),
                                key);
            remotes.push_back(c.welcome().host);
        }
    } catch (const std::exception& e) {
        return refuse(e.what(), 1);
    }
    zc::write_topology(std::cout, opt.output, zc::probe_host(), remotes);
    return 0;
}

// The servers to test against: those named, or an embedded one on loopback. 0, or main's exit status.
int choose_servers(const zc::ClientOptions& opt, std::unique_ptr<zc::EmbeddedServer>& embedded,
                   std::vector<zc::Endpoint>& servers) {
    try {
        if (opt.servers.empty()) {
            const char* loopback = opt.family == AF_INET6 ? "::1" : "127.0.0.1";  // -6: over IPv6's loopback
            // It forks, so before any thread exists; the remote side, it starts the GPU driver only when that
            // side's buffers need it.
            embedded = std::make_unique<zc::EmbeddedServer>(loopback, opt.remote.buffer.needs_cuda());
            servers.push_back({loopback, embedded->port()});
        }
        for (const auto& s : opt.servers) servers.push_back(zc::parse_endpoint(s, opt.port));
        for (auto& s : servers) s.family = opt.family;  // -4/-6: control and data (data_setup follows it)
    } catch (const std::exception& e) {
        return refuse(e.what(), 2);
    }
    return 0;
}

void stop_on_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

// Where the results go: the report on stdout, and the files the options name.
struct Outputs {
    std::ofstream stacks;         // --explain-stacks
    std::ofstream samples;        // --samples
    std::ofstream csv_intervals;  // --csv-intervals
    std::ofstream histogram_log;  // --histogram-log
    std::chrono::system_clock::time_point log_start = std::chrono::system_clock::now();
    std::unique_ptr<zc::ReportWriter> writer;

    double since_log_start() const {
        return std::chrono::duration<double>(std::chrono::system_clock::now() - log_start).count();
    }
};

bool open_file(std::ofstream& f, const std::string& path, const char* option) {
    f.open(path);
    if (!f) std::cerr << "zcperf: cannot write " << option << " " << path << ": " << std::strerror(errno) << "\n";
    return bool(f);
}

// The report writer, teed into the --csv-intervals and --html writers where asked. 0, or main's exit status.
int open_outputs(const zc::ClientOptions& opt, Outputs& out) {
    if (!opt.explain_stacks.empty() && !open_file(out.stacks, opt.explain_stacks, "--explain-stacks")) return 2;
    if (!opt.samples_file.empty()) {
        if (!open_file(out.samples, opt.samples_file, "--samples")) return 2;
        zc::write_samples_header(out.samples);
    }
    if (!opt.histogram_log.empty()) {
        if (!open_file(out.histogram_log, opt.histogram_log, "--histogram-log")) return 2;
        zc::write_histogram_log_header(out.histogram_log,
                                       std::chrono::duration<double>(out.log_start.time_since_epoch()).count());
    }
    out.writer = zc::make_report_writer(opt.output, std::cout);
    auto tee = [&](std::unique_ptr<zc::ReportWriter> second) {
        std::vector<std::unique_ptr<zc::ReportWriter>> both;
        both.push_back(std::move(out.writer));
        both.push_back(std::move(second));
        out.writer = zc::make_tee_report(std::move(both));
    };
    if (!opt.csv_intervals.empty()) {
        if (!open_file(out.csv_intervals, opt.csv_intervals, "--csv-intervals")) return 2;
        tee(zc::make_csv_intervals_report(out.csv_intervals));
    }
    if (!opt.html.empty()) {
        try {
            tee(zc::make_html_report(opt.html));
        } catch (const std::exception& e) {
            return refuse(e.what(), 2);
        }
    }
    return 0;
}

struct Controls {
    std::vector<std::unique_ptr<zc::ControlClient>> forward;
    std::vector<std::unique_ptr<zc::ControlClient>> reverse;  // --bidir's maerts twins
    std::vector<std::unique_ptr<zc::ControlClient>> loads;    // --under-load's stream tests, a second connection each
};

// A control connection to each server (two with --bidir), and what can be said of each before any
// test. 0, or main's exit status.
int connect_servers(const zc::ClientOptions& opt, const std::vector<zc::Endpoint>& servers, const zc::SharedSecret* key,
                    Controls& controls) {
    const std::chrono::milliseconds timeout(opt.connect_timeout_ms);
    const bool under_load =
        std::any_of(opt.under_load_counts.begin(), opt.under_load_counts.end(), [](int n) { return n > 0; });
    try {
        for (const auto& ep : servers) {
            controls.forward.push_back(zc::connect_control(ep, timeout, key, std::cerr));
            if (opt.bidir) controls.reverse.push_back(zc::connect_control(ep, timeout, key, std::cerr));
            if (under_load) controls.loads.push_back(zc::connect_control(ep, timeout, key, std::cerr));
        }
    } catch (const std::exception& e) {
        return refuse(e.what(), 1);
    }
    for (const auto& c : controls.forward) {
        if (auto problem = zc::remote_memory_problem(c->welcome().host, opt.remote.buffer); !problem.empty())
            return refuse(problem, 1);
        if (under_load) {  // refused before any test, not after the sweep's first ran alone
            if (auto why = zc::under_load_support_problem(c->welcome()); !why.empty())
                return refuse(c->server().host + ": " + why, 1);
        }
        // Said now, before any test: the run goes on with this side's intervals only.
        if (auto note = zc::interval_support_problem(opt.params, c->welcome()); !note.empty())
            std::cerr << "zcperf: " << c->server().host << ": " << note << "\n";
    }
    return 0;
}

zc::ReportHeader report_header(const zc::ClientOptions& opt, const Controls& controls, bool embedded) {
    zc::ReportHeader header;
    header.software = "zcperf " ZCPERF_VERSION;
    header.command_line = opt.command_line;
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    header.local_host = name;
    if (utsname u{}; uname(&u) == 0) header.local_kernel = u.release;
    for (const auto& c : controls.forward) {
        std::string sep = header.server.empty() ? "" : ", ";
        header.server += sep + c->server().host + ":" + std::to_string(c->server().port);
        header.remote_host += sep + c->welcome().host.hostname;
        header.remote_software += sep + c->welcome().software;
        header.remote_kernel += sep + c->welcome().host.kernel;
    }
    header.embedded_server = embedded;
    return header;
}

// One test's -i rounds (until the goal is met), each reported as its intervals come.
std::vector<zc::TestResult> iterate(zc::ControlClient& control, const zc::TestSpec& spec,
                                    const zc::ConfidenceGoal& goal, zc::ReportWriter& writer) {
    std::vector<zc::TestResult> runs;
    auto on_interval = [&](const zc::IntervalRow& row) { writer.interval(spec, row); };
    do {
        runs.push_back(zc::run_test(control, spec, {on_interval, static_cast<int>(runs.size()) + 1, {}}));
    } while (!zc::enough_iterations(goal, zc::tracked_series(runs)));
    return runs;
}

// --invocations N: invocation k runs every test's rounds before k+1 starts, so each test's invocations
// are set-ups apart; each test's rounds merged, each labelled with its invocation.
std::vector<zc::TestResult> run_invocations(const zc::ClientOptions& opt, const std::vector<zc::TestSpec>& specs,
                                            zc::ControlClient& control, zc::ReportWriter& writer) {
    std::vector<std::vector<zc::TestResult>> runs(specs.size());
    std::vector<std::vector<int>> labels(specs.size());
    for (int inv = 1; inv <= opt.invocations; ++inv)
        for (size_t i = 0; i < specs.size(); ++i)
            for (auto& r : iterate(control, specs[i], opt.goal, writer)) {
                runs[i].push_back(std::move(r));
                labels[i].push_back(inv);
            }
    std::vector<zc::TestResult> out;
    for (size_t i = 0; i < specs.size(); ++i) {
        out.push_back(zc::merge_iterations(runs[i], opt.goal));
        out.back().round_invocations = labels[i];
    }
    return out;
}

// Every test against every server, each reported as it ends. Throws what ends the run.
void run_tests(const zc::ClientOptions& opt, const std::vector<zc::TestSpec>& specs, Controls& controls, Outputs& out) {
    for (size_t c = 0; c < controls.forward.size(); ++c) {
        auto& control = *controls.forward[c];
        std::vector<zc::TestResult> done;
        auto report = [&](zc::TestResult r, const zc::TestSpec& spec) {
            r.under_load.asked = spec.load.asked;  // a sweep's 0: the test alone, reported as such
            zc::compare_with_baseline(r, done, opt.transports.front(), opt.rx_modes.front());
            out.writer->add(r);
            if (out.stacks.is_open())
                zc::write_folded_stacks(out.stacks, r, specs.size() > 1 ? zc::explain_test_label(r) : std::string());
            if (out.samples.is_open()) zc::write_samples(out.samples, r);
            if (out.histogram_log.is_open()) {  // the test's interval ended about now (its results just came in)
                const double start_s = out.since_log_start() - r.messages.elapsed_s;
                zc::write_histogram_log_line(out.histogram_log, r, std::max(0.0, start_s), specs.size() > 1);
            }
            done.push_back(std::move(r));
        };
        if (opt.invocations > 1) {
            auto results = run_invocations(opt, specs, control, *out.writer);
            for (size_t i = 0; i < specs.size(); ++i) report(std::move(results[i]), specs[i]);
            continue;
        }
        for (const auto& spec : specs) {
            if (opt.bidir) {
                auto [forward, back] = zc::run_bidir(control, *controls.reverse[c], spec);
                out.writer->add(forward);
                out.writer->add(back);
                continue;
            }
            report(spec.load.streams > 0
                       ? zc::run_under_load(control, *controls.loads[c], spec)
                       : zc::merge_iterations(iterate(control, spec, opt.goal, *out.writer), opt.goal),
                   spec);
        }
    }
}

// run_tests, with what ended it in the report and on stderr; main's exit status.
int run_and_report(const zc::ClientOptions& opt, Controls& controls, Outputs& out) {
    auto specs = zc::expand_tests(opt);
    try {
        run_tests(opt, specs, controls, out);
        return 0;
    } catch (const zc::InterruptedError&) {
        out.writer->error("interrupted: the test was stopped on both sides");
        return refuse("interrupted; the running test was stopped on both sides", 130);
    } catch (const zc::ServerError& e) {
        out.writer->error(std::string("the server refused: ") + e.what());
        return refuse(std::string("the server refused: ") + e.what(), 1);
    } catch (const std::exception& e) {
        out.writer->error(e.what());
        return refuse(e.what(), 1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && std::string_view(argv[1]) == "compare") return zc::compare_main(argc - 1, argv + 1);
    if (argc > 1 && std::string_view(argv[1]) == "survey") return zc::survey_main(argc - 1, argv + 1);
    zc::ClientOptions opt;
    if (int rc = zc::parse_client_options(argc, argv, opt); rc >= 0) return rc;

    std::optional<zc::SharedSecret> secret;
    if (int rc = read_auth_key(opt, secret)) return rc;
    const zc::SharedSecret* key = secret ? &*secret : nullptr;
    if (opt.topology) return show_topology(opt, key);
    if (!opt.explain_categories.empty()) {
        try {
            zc::write_category_rules(std::cout, opt.explain_categories);
            return 0;
        } catch (const std::exception& e) {
            return refuse(e.what(), 2);
        }
    }
    if (opt.gpu_copy_bandwidth) return zc::write_gpu_copy_bandwidth(std::cout, std::cerr, opt.output);
    std::unique_ptr<zc::EmbeddedServer> embedded;
    std::vector<zc::Endpoint> servers;
    if (int rc = choose_servers(opt, embedded, servers)) return rc;
    stop_on_signals();

    Outputs out;
    if (int rc = open_outputs(opt, out)) return rc;
    Controls controls;
    if (int rc = connect_servers(opt, servers, key, controls)) return rc;
    out.writer->begin(report_header(opt, controls, embedded != nullptr));
    int status = run_and_report(opt, controls, out);
    // A run that failed because the embedded server went away says how it went (the control connection
    // alone cannot tell a crash from a kill).
    if (status != 0 && embedded) {
        if (std::string how = embedded->ended_how(500); !how.empty())
            std::cerr << "zcperf: the embedded server ended during the run: " << how << "\n";
    }
    out.writer->end();
    return status;
}
