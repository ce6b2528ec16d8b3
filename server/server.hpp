#pragma once
// zcserver: accepts control connections and runs one Session for each, many at once.
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it under C++20
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "admission.hpp"
#include "security/shared_secret.hpp"
#include "system/host_info.hpp"

namespace zc {

struct ServerOptions {
    std::string bind;  // numeric address; "" = all
    uint16_t port = 12875;
    int max_sessions = 64;   // sessions that finished their handshake; see StartupLimits for the rest
    StartupLimits startups;  // connections still in their handshake
    std::chrono::seconds handshake_timeout{5};  // from accept to hello (and, with a key, its proof)
    std::chrono::seconds idle_timeout{300};
    double max_duration_s = 3600;
    bool allow_irq_affinity = false;  // clients may move this host's IRQs only when the operator says so
    bool exclusive = false;           // one test at a time (--exclusive)
    int max_streams = 64;
    uint64_t max_buffer_bytes = 2ull << 30;  // data buffers one session may make this server allocate
    std::optional<SharedSecret> secret;      // set: clients must prove the shared key
    bool verbose = true;
    bool handle_signals = true;  // SIGINT/SIGTERM stop it; off where it runs inside another program (zcperf-mpi)
    // Off: the server offers host memory only and never starts the GPU driver (zcperf's embedded server
    // when no test asks it for GPU or pinned memory: the driver's start is seconds on some hosts).
    bool probe_gpus = true;
};

class Server {
public:
    explicit Server(ServerOptions options);  // binds; throws std::runtime_error with what to do
    uint16_t port() const { return port_; }
    void run();   // until stop() or SIGINT/SIGTERM
    void stop();  // on the server's own thread; from another: boost::asio::post(io(), [&] { stop(); })

    // Used by sessions.
    boost::asio::io_context& io() { return io_; }
    const ServerOptions& options() const { return options_; }
    const HostInfo& host() const { return host_; }
    void log(const std::string& line) const;
    Admission& admission() { return admission_; }
    uint64_t next_session_id() { return next_session_id_++; }
    // --exclusive: the test that runs now, if any. Taking it succeeds when none runs; the session keeps
    // it from its setup to its test's end. Only on the server's own thread.
    struct RunningTest {
        uint64_t session = 0;  // 0: none
        std::string peer, test;
        std::chrono::steady_clock::time_point since;
    };
    bool take_exclusive(uint64_t session, const std::string& peer, const std::string& test);
    void release_exclusive(uint64_t session);
    const RunningTest& exclusive_test() const { return exclusive_; }
    // A connection refused or dropped before it became a session: logged once per burst, the first
    // one in full and the rest summed up when the burst ends (or every minute while it lasts).
    void note_refusal(const std::string& kind, const std::string& first_line);

private:
    void accept_next();
    void admit(boost::asio::ip::tcp::socket socket);
    void burst_tick();

    struct Burst {
        bool open = false;
        std::chrono::steady_clock::time_point since;
        int total = 0;
        int this_tick = 0;
        std::map<std::string, int> kinds;
    };

    ServerOptions options_;
    HostInfo host_;
    boost::asio::io_context io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::signal_set signals_;
    boost::asio::steady_timer retry_timer_;
    boost::asio::steady_timer burst_timer_;
    uint16_t port_ = 0;
    Admission admission_;
    Burst burst_;
    uint64_t next_session_id_ = 1;
    RunningTest exclusive_;
};

}  // namespace zc
