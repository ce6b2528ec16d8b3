// zcperf survey's command line and its run: zcperf's options (one definition, client/cli.cpp) plus the
// survey's own, the points run round after round through the run driver, progress on stderr.
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli.hpp"
#include "control_client.hpp"
#include "core/units.hpp"
#include "embedded_server.hpp"
#include "explain/side_explainer.hpp"
#include "core/transport_registry.hpp"
#include "kind/spec_rules.hpp"
#include "protocol/result.hpp"
#include "run_driver.hpp"
#include "survey.hpp"
#include "socket/endpoint.hpp"

namespace zc {

namespace {

std::string survey_description() {
    return "zcperf survey: where zero-copy starts to pay on this host. Every stream path the server and this host "
           "accept (or --paths), over a ladder of message sizes (--sizes, default 4K..4M doubling), in alternating "
           "rounds (--rounds: each round runs every point once, in an order that changes), with --explain at its "
           "default rate. Each path is set against its family's copy path (" +
           copy_paths_text() +
           ") at the same size, paired by round: throughput and each side's service demand as ratios "
           "with 95 % intervals over the rounds' paired ratios, verdicts held to a false discovery rate of 5 % over "
           "the whole survey (Benjamini-Hochberg); per path, the crossover: the smallest size from which its "
           "sender's service demand is lower, and where it stops. The paths refused here or by the server are "
           "listed with the reason. Progress and the time left go to stderr. zcperf's options (-H, -l, --cpu, -o "
           "...) apply to every point; -T, -m, --rx, -t and -i are the survey's to choose. --html FILE writes one "
           "self-contained page: each figure and ratio against the size with its band, the crossovers marked, the "
           "sender's --explain categories per size, and any point's flame graphs beside its copy path's.";
}

// They name rows of this build (core/transport_registry.hpp's example_rows).
std::string survey_examples() {
    const ExampleRows& r = example_rows();
    return fmt::format(
        "Examples:\n"
        "  zcperf survey --cpu 0,1                         every path, 4K..4M, 5 rounds, on loopback\n"
        "  zcperf survey --paths {0},{1},{2} --sizes 4K,16K,64K,256K,1M --rounds 5\n"
        "  zcperf survey -H 10.0.0.2 --paths {0},{1} -o json > survey.json\n"
        "  zcperf survey --paths {0},{1} --sizes 4K,64K,1M --html survey.html   the charts, crossovers, flame graphs",
        r.copy, r.zerocopy, r.file);
}

struct SurveyOptions {
    std::string paths, sizes;
    int rounds = 5;
    double fdr = kDefaultFdr;
};

void on_signal(int) { g_interrupted.store(true); }

CliProgram survey_program(SurveyOptions& s) {
    CliProgram p;
    p.name = "zcperf survey";
    p.description = survey_description();
    p.examples = survey_examples();
    p.rows = {
        value("--paths", s.paths,
              "LIST: the paths, comma-separated: a transport, or TRANSPORT/RX for a receive mode (" +
                  std::string(example_rows().copy) +
                  "/zerocopy); each family's copy path is added when missing (default: every stream path, and the "
                  "copy paths' receive modes)")
            .value_kind("LIST"),
        value("--sizes", s.sizes, "LIST: message sizes, comma-separated (4K,64K,1M; default 4K..4M, doubling)")
            .value_kind("LIST"),
        value_in("--rounds", s.rounds, Bounds<int>{2, 1000},
                 "N: rounds; each runs every point once (2 or more: the intervals are over the rounds)"),
        value_in("--fdr", s.fdr, Bounds<double>{0.0001, 0.5},
                 "Q: the false discovery rate the verdicts hold over all the survey's ratios (Benjamini-Hochberg)")
            .value_kind("Q"),
    };
    p.check = [](const ClientOptions& o) {
        const ClientOptions defaults;
        if (o.transports != defaults.transports || o.rx_modes != defaults.rx_modes)
            throw std::invalid_argument(
                fmt::format("-T and --rx: the survey chooses its paths with --paths ({}, {}/zerocopy)",
                            example_rows().zerocopy, example_rows().copy));
        if (o.sizes_given) throw std::invalid_argument("-m: the survey chooses its sizes with --sizes");
        if (o.tests != defaults.tests)
            throw std::invalid_argument("-t: the survey runs stream tests (the sender is this host)");
        if (o.goal.max_iterations > 1 || o.invocations > 1)
            throw std::invalid_argument("-i/-I/--invocations: the survey repeats with --rounds");
        if (o.servers.size() > 1) throw std::invalid_argument("-H: the survey runs against one server");
        if (o.output == "json-stream" || o.bidir || o.topology || o.gpu_copy_bandwidth ||
            !o.under_load_counts.empty() || !o.csv_intervals.empty() || !o.samples_file.empty() ||
            !o.histogram_log.empty() || !o.explain_stacks.empty())
            throw std::invalid_argument(
                "--json-stream, --bidir, --topology, --gpu-copy-bandwidth, --under-load, --csv-intervals, --samples, "
                "--histogram-log and --explain-stacks are zcperf's: run them with zcperf");
    };
    return p;
}

std::vector<SurveyPath> chosen_paths(const std::string& text) {
    std::vector<SurveyPath> out;
    for (const auto& name : split_commas(text)) {
        SurveyPath p = survey_path_from_name(name);
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    for (size_t i = 0, n = out.size(); i < n; ++i) {  // each family's reference, measured beside it
        SurveyPath copy = copy_path_of(out[i]);
        if (std::find(out.begin(), out.end(), copy) == out.end()) {
            std::cerr << "zcperf survey: adding " << copy.name() << ", the copy path " << out[i].name()
                      << " is measured against\n";
            out.push_back(copy);
        }
    }
    return out;
}

TestSpec spec_of(const ClientOptions& o, const SurveyPath& p, uint64_t size) {
    TestSpec s{o.params, o.local, o.remote, o.load};
    s.transport = p.transport;
    s.rx = p.rx;
    s.test = Workload::stream;
    s.message_size = size;
    if (!(transport_info(p.transport).batch_tests & bit(s.test))) s.batch = 1;
    return s;
}

// Why this host refuses the point before anything is asked of the server ("" when it does not).
std::string local_refusal(const TestSpec& s) {
    const TransportInfo& row = transport_info(s.transport);
    if (!row.built) return not_built_reason(row);
    return spec_problem(s);
}

std::string minutes(double s) {
    if (s < 60) return fmt::format("{:.0f} s", s);
    return fmt::format("{:.0f} min {:.0f} s", std::floor(s / 60), std::fmod(s, 60));
}

nlohmann::json run_header(const ClientOptions& o, const ControlClient& c, bool embedded) {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    utsname u{};
    uname(&u);
    return {{"software", "zcperf " ZCPERF_VERSION},
            {"command_line", o.command_line},
            {"local_host", name},
            {"local_kernel", u.release},
            {"server", c.server().host + ":" + std::to_string(c.server().port)},
            {"remote_host", c.welcome().host.hostname},
            {"remote_kernel", c.welcome().host.kernel},
            {"remote_software", c.welcome().software},
            {"embedded_server", embedded},
            {"duration_s", o.params.duration_s},
            {"explain_hz", o.params.explain_hz}};
}

// Every live point once per round, in round_order's order; a point the server (or this side's run of it)
// refuses is dropped with the reason, and the control connection made afresh (a server may close it after
// a refusal). Throws what ends the survey (a lost server, Ctrl-C).
void run_rounds(std::unique_ptr<ControlClient>& control, const std::function<std::unique_ptr<ControlClient>()>& connect,
                const ClientOptions& o, SurveyResult& r) {
    const bool tty = isatty(STDERR_FILENO);
    size_t live = 0;
    for (const auto& p : r.points) live += p.refused.empty();
    const auto start = std::chrono::steady_clock::now();
    size_t done = 0;
    for (int round = 1; round <= r.rounds; ++round) {
        for (auto [pi, si] : round_order(r.paths.size(), r.sizes.size(), round)) {
            SurveyPoint& pt = r.points[pi * r.sizes.size() + si];
            if (!pt.refused.empty()) continue;
            try {
                TestResult res = run_test(*control, spec_of(o, pt.path, pt.size));
                pt.rounds.push_back(result_figures(res));
                const SideResult& tx = res.local.role == Role::recv ? res.remote : res.local;
                const SideResult& rx = res.local.role == Role::recv ? res.local : res.remote;
                pt.zerocopy.sent_bytes += tx.zerocopy.sent_bytes;
                pt.zerocopy.copied_bytes += tx.zerocopy.copied_bytes;
                pt.zerocopy.rx_mapped_bytes += rx.zerocopy.rx_mapped_bytes;
                pt.zerocopy.rx_copied_bytes += rx.zerocopy.rx_copied_bytes;
                for (size_t side = 0; side < 2; ++side)
                    for (const auto& [stack, n] : (side == 0 ? tx : rx).explain.stacks) pt.stacks[side][stack] += n;
            } catch (const ServerError& e) {
                pt.refused = std::string("the server refused: ") + e.what();
            } catch (const InterruptedError&) {
                throw;
            } catch (const ConnectionError&) {
                throw;
            } catch (const std::exception& e) {
                pt.refused = e.what();
            }
            if (!pt.refused.empty()) {
                if (round > 1) pt.refused = fmt::format("failed in round {}: {}", round, pt.refused);
                pt.rounds.clear();
                --live;
                control = connect();
                std::cerr << (tty ? "\r\x1b[K" : "") << "zcperf survey: " << pt.path.name() << " "
                          << format_size(pt.size) << " dropped: " << pt.refused << "\n";
                continue;
            }
            ++done;
            const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const size_t total = live * static_cast<size_t>(r.rounds);
            const double left = done ? spent / static_cast<double>(done) * static_cast<double>(total - done) : 0;
            if (tty)
                std::cerr << fmt::format("\r\x1b[Kzcperf survey: round {}/{}, {} {}, {}/{} runs, about {} left", round,
                                         r.rounds, pt.path.name(), format_size(pt.size), done, total, minutes(left))
                          << std::flush;
        }
        if (!tty) {
            const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::cerr << fmt::format("zcperf survey: round {}/{} done in {}, about {} left\n", round, r.rounds,
                                     minutes(spent), minutes(spent / round * (r.rounds - round)));
        }
    }
    if (tty) std::cerr << "\r\x1b[K";
}

}  // namespace

int survey_main(int argc, char** argv) {
    ClientOptions o;
    o.params.duration_s = 1;                  // the survey's default -l: points x rounds of them
    o.params.explain_hz = kDefaultExplainHz;  // --explain at its default rate
    SurveyOptions s;
    if (int rc = parse_client_options(argc, argv, o, survey_program(s)); rc >= 0) return rc;
    o.params.explain_stacks = !o.html.empty();  // the page's flame graphs; else the figures are kept, not the stacks
    if (!o.html.empty()) {                      // a page that cannot be written is refused before the survey runs
        std::ofstream probe(o.html);
        if (!probe) {
            std::cerr << "zcperf survey: cannot write --html " << o.html << ": " << std::strerror(errno) << "\n";
            return 2;
        }
    }
    SurveyResult r;
    r.rounds = s.rounds;
    try {
        r.paths = s.paths.empty() ? default_survey_paths() : chosen_paths(s.paths);
        r.sizes = s.sizes.empty() ? default_survey_sizes() : parse_size_list(s.sizes);
    } catch (const std::exception& e) {
        std::cerr << "zcperf survey: " << e.what() << "\n";
        return 2;
    }
    for (const auto& p : r.paths)
        for (uint64_t size : r.sizes) r.points.push_back({p, size, {}, {}, local_refusal(spec_of(o, p, size))});

    std::optional<SharedSecret> secret;
    std::unique_ptr<EmbeddedServer> embedded;
    std::unique_ptr<ControlClient> control;
    std::function<std::unique_ptr<ControlClient>()> connect;
    try {
        if (!o.auth_key_file.empty()) secret = SharedSecret::from_file(o.auth_key_file);
        Endpoint ep;
        if (o.servers.empty()) {
            const char* loopback = o.family == AF_INET6 ? "::1" : "127.0.0.1";
            embedded = std::make_unique<EmbeddedServer>(loopback, false);
            ep = {loopback, embedded->port()};
        } else {
            ep = parse_endpoint(o.servers.front(), o.port);
        }
        ep.family = o.family;
        connect = [ep, &o, &secret] {
            return connect_control(ep, std::chrono::milliseconds(o.connect_timeout_ms), secret ? &*secret : nullptr,
                                   std::cerr);
        };
        control = connect();
    } catch (const std::exception& e) {
        std::cerr << "zcperf survey: " << e.what() << "\n";
        return 1;
    }
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    r.run = run_header(o, *control, embedded != nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        run_rounds(control, connect, o, r);
    } catch (const InterruptedError&) {
        std::cerr << "\nzcperf survey: interrupted; the running test was stopped on both sides\n";
        return 130;
    } catch (const std::exception& e) {
        std::cerr << "\nzcperf survey: " << e.what() << "\n";
        if (embedded)
            if (std::string how = embedded->ended_how(500); !how.empty())
                std::cerr << "zcperf survey: the embedded server ended during the survey: " << how << "\n";
        return 1;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    analyse_survey(r, s.fdr);
    if (o.output == "json")
        std::cout << to_json(r).dump(2) << "\n";
    else if (o.output == "csv")
        write_survey_csv(std::cout, r);
    else
        write_survey_human(std::cout, r);
    if (!o.html.empty()) {
        try {
            write_survey_html(o.html, r);
        } catch (const std::exception& e) {
            std::cerr << "zcperf survey: " << e.what() << "\n";
            return 1;
        }
    }
    return 0;
}

}  // namespace zc
