// zcserver: the daemon side of zcperf (netserver's role). Runs the server side of each test on
// pinned threads and reports its own measurements back over the control connection.
#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <csignal>
#include <iostream>

#include "run/build_info.hpp"
#include "server.hpp"
#include "system/irq.hpp"
#include "core/units.hpp"
#include "options/option_rows.hpp"
#include "protocol/run_spec.hpp"

namespace {

// Every connection holds a descriptor: take the whole hard limit (the soft one is often 1024), and say
// so when even that is too small for the limits given.
void raise_descriptor_limit(const zc::ServerOptions& opt) {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) != 0) return;
    if (r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
        getrlimit(RLIMIT_NOFILE, &r);
    }
    // Startups, plus per session its control connection, the data listener and its streams.
    uint64_t need = static_cast<uint64_t>(opt.startups.full) +
                    static_cast<uint64_t>(opt.max_sessions) * (2 + static_cast<uint64_t>(opt.max_streams)) + 64;
    if (r.rlim_cur != RLIM_INFINITY && need > r.rlim_cur) {
        std::cerr << "zcserver: warning: --max-startups " << opt.startups.text() << ", --max-sessions "
                  << opt.max_sessions << " and --max-streams " << opt.max_streams << " may need " << need
                  << " descriptors, more than this process may open (" << r.rlim_cur
                  << "); lower them or raise the limit (ulimit -Hn, LimitNOFILE= in a systemd unit)\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    zc::ServerOptions opt;
    CLI::App app{
        "zcserver " ZCPERF_VERSION
        ": the zcperf daemon. Clients (zcperf -H THIS_HOST) connect to its control port;\n"
        "each test's server side runs on its own pinned threads and reports its own bytes, CPU and service demand.\n\n"
        "Examples:\n"
        "  zcserver                      listen on all addresses, port 12875\n"
        "  zcserver --bind 10.0.0.2 -p 5000\n"
        "  zcserver --max-sessions 8 --quiet\n",
        "zcserver"};
    using zc::flag, zc::size_in, zc::text, zc::value, zc::value_in;
    int handshake = static_cast<int>(opt.handshake_timeout.count()), idle = 300;
    std::string key_file;
    bool quiet = false;
    // zcserver's options, one row each (common/options/option_rows.hpp).
    zc::OptionRows rows{
        value("-p,--port", opt.port, "control port to listen on"),
        value("-b,--bind", opt.bind, "numeric address to listen on (default: all)"),
        value_in("--max-sessions", opt.max_sessions, zc::Bounds<int>{1, 100000},
                 "clients served at once; only those that finished the handshake (hello, and with --auth-key-file "
                 "the key's proof) count, so idle connections cannot take these slots"),
        text("--max-startups",
             "START:RATE:FULL bounds connections still in their handshake (as sshd's MaxStartups): from START on, a "
             "new one is refused at random, RATE % of them rising to all at FULL; N alone = a hard bound. Each "
             "costs one descriptor and about 1 KiB; refused clients are told and zcperf retries",
             [&opt](const std::string& t) {
                 int per_source = opt.startups.per_source;  // its own row's
                 opt.startups = zc::parse_max_startups(t);
                 opt.startups.per_source = per_source;
             })
            .shows(opt.startups.text()),
        value_in("--max-startups-per-source", opt.startups.per_source, zc::Bounds<int>{1, 100000},
                 "connections from one address (one /64 for IPv6) that may be in their handshake at once; more are "
                 "refused at once, so one host cannot fill --max-startups"),
        value_in("--handshake-timeout", handshake, zc::Bounds<int>{1, 3600},
                 "seconds from connecting to the end of the handshake (hello, and with a key its proof); zcperf needs "
                 "one or two round trips, so keep it short: a silent or dribbling connection holds a --max-startups "
                 "slot this long"),
        value_in("--idle-timeout", idle, zc::Bounds<int>{1, 86400}, "seconds a session may sit between tests"),
        value_in("--max-duration", opt.max_duration_s, zc::Bounds<double>{0.01, zc::kMaxDurationS},
                 "longest test (seconds) a client may ask for"),
        flag("--allow-irq-affinity", opt.allow_irq_affinity,
             "let clients move this host's network IRQs for a test (zcperf --irq-cpus); they are put back after "
             "every test, also when a client or zcserver dies"),
        flag("--exclusive", opt.exclusive,
             "run one test at a time, for clean whole-host CPU figures on a shared server: a client that sets up a "
             "test while another client's runs is refused and told whose test it is, or, if it asked to wait "
             "(zcperf --server-wait SECS), waits up to that long and its report says so"),
        value_in("--max-streams", opt.max_streams, zc::Bounds<int>{1, zc::kMaxStreams},
                 "most streams one test may ask for"),
        size_in("--max-buffer-memory", opt.max_buffer_bytes, 0, UINT64_MAX,
                "most data-buffer memory one session may make zcserver allocate (e.g. 512M)")
            .shows(zc::format_size(opt.max_buffer_bytes)),
        value("--auth-key-file", key_file,
              "require clients to prove this shared key (HMAC-SHA256 challenge-response; the file must be chmod 600, "
              "16 bytes or more; clients use zcperf --auth-key-file with the same file)")
            .value_kind("FILE"),
        flag("-q,--quiet", quiet, "do not log sessions to stderr"),
    };
    app.set_version_flag("-V,--version", zc::version_text("zcserver"));
    if (int rc = zc::parse_rows(app, rows, argc, argv); rc >= 0) return rc;
    opt.handshake_timeout = std::chrono::seconds(handshake);
    opt.idle_timeout = std::chrono::seconds(idle);
    opt.verbose = !quiet;
    try {
        raise_descriptor_limit(opt);
        if (!key_file.empty()) opt.secret = zc::SharedSecret::from_file(key_file);

        if (opt.allow_irq_affinity) {
            // The guardian step: IRQs a killed test (and its guardian) left moved are put back first.
            for (int irq : zc::restore_abandoned_irqs())
                std::cerr << "zcserver: IRQ " << irq << " was left moved by a test that was killed; put back\n";
        }
        zc::Server server(opt);
        server.run();
    } catch (const std::exception& e) {
        std::cerr << "zcserver: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
