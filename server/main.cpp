// zcserver: the daemon side of zcperf (netserver's role). Runs the server side of each test on
// pinned threads and reports its own measurements back over the control connection.
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>

#include "run/build_info.hpp"
#include "server.hpp"
#include "units.hpp"

int main(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    zc::ServerOptions opt;
    CLI::App app{
        "zcserver " ZCPERF_VERSION ": the zcperf daemon. Clients (zcperf -H THIS_HOST) connect to its control port;\n"
        "each test's server side runs on its own pinned threads and reports its own bytes, CPU and service demand.\n\n"
        "Examples:\n"
        "  zcserver                      listen on all addresses, port 12875\n"
        "  zcserver --bind 10.0.0.2 -p 5000\n"
        "  zcserver --max-sessions 8 --quiet\n"};
    app.add_option("-p,--port", opt.port, "control port to listen on")->capture_default_str();
    app.add_option("-b,--bind", opt.bind, "numeric address to listen on (default: all)");
    app.add_option("--max-sessions", opt.max_sessions, "control connections served at once")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    int handshake = 5, idle = 300;
    app.add_option("--handshake-timeout", handshake, "seconds a new client has to say hello")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    app.add_option("--idle-timeout", idle, "seconds a session may sit between tests")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str();
    app.add_option("--max-duration", opt.max_duration_s, "longest test (seconds) a client may ask for")
        ->check(CLI::Range(0.01, 86400.0))
        ->capture_default_str();
    app.add_flag("--allow-irq-affinity", opt.allow_irq_affinity,
                 "let clients move this host's network IRQs for a test (zcperf --irq-cpus); they are put back "
                 "after every test, also when a client or zcserver dies");
    app.add_option("--max-streams", opt.max_streams, "most streams one test may ask for")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    std::string max_buf = "2G", key_file;
    app.add_option("--max-buffer-memory", max_buf, "most data-buffer memory one session may make zcserver allocate (e.g. 512M)")
        ->capture_default_str();
    app.add_option("--auth-key-file", key_file,
                   "require clients to prove this shared key (HMAC-SHA256 challenge-response; the file must be "
                   "chmod 600, 16 bytes or more; clients use zcperf --auth-key-file with the same file)");
    bool quiet = false;
    app.add_flag("-q,--quiet", quiet, "do not log sessions to stderr");
    app.set_version_flag("-V,--version", zc::version_text("zcserver"));
    CLI11_PARSE(app, argc, argv);
    opt.handshake_timeout = std::chrono::seconds(handshake);
    opt.idle_timeout = std::chrono::seconds(idle);
    opt.verbose = !quiet;
    try {
        opt.max_buffer_bytes = zc::parse_size(max_buf);
        if (!key_file.empty()) opt.secret = zc::SharedSecret::from_file(key_file);

        zc::Server server(opt);
        server.run();
    } catch (const std::exception& e) {
        std::cerr << "zcserver: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
