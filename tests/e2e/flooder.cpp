// zcflood: what an attacker without the key can do to zcserver's control port, as one process (used
// by the Flood e2e tests and bench/flood.sh). Single-threaded poll loop, non-blocking sockets:
//   --idle N      connections that send nothing and reconnect (after --reconnect-ms) when closed
//   --burst N     connections opened all at once after --burst-after s, never reconnected
//   --dribble N   connections that send a valid hello one byte every --dribble-ms, reconnecting
// Sources are --source-first and the next --sources - 1 addresses (127.0.0.2.. on loopback: any
// 127/8 address is local), so a per-source limit sees several attacking hosts.
// At the end (--seconds, or SIGTERM) it prints one JSON object of what the server did to those connections.
#include <CLI/CLI.hpp>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_stop = 0;  // SIGTERM/SIGINT: stop early, still print the summary
void on_stop(int) { g_stop = 1; }

enum class Kind { idle, burst, dribble };

struct Conn {
    Kind kind;
    int fd = -1;
    bool connecting = false;
    size_t sent = 0;         // dribble: bytes of the hello sent
    Clock::time_point next;  // reconnect (fd < 0) or next byte (dribble)
    uint32_t source = 0;
};

struct Counts {
    long connects = 0, connect_errors = 0, busy_refusals = 0, handshake_timeouts = 0, other_errors = 0,
         closed_silently = 0, welcomes = 0, hellos_completed = 0;
    size_t max_open = 0;
};

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGTERM, on_stop);
    std::signal(SIGINT, on_stop);
    CLI::App app{"zcflood: floods a zcserver's control port with idle, bursting and slow connections"};
    int port = 0, idle = 70, burst = 0, dribble = 0, sources = 1, reconnect_ms = 20, dribble_ms = 100;
    double seconds = 10, burst_after = 1;
    std::string first = "127.0.0.2";
    app.add_option("--port", port, "zcserver's control port on the 127.0.0.1 side")->required();
    std::string target = "127.0.0.1";
    app.add_option("--host", target, "zcserver's address")->capture_default_str();
    app.add_option("--source-first", first, "first source address")->capture_default_str();
    app.add_option("--sources", sources, "how many consecutive source addresses")->capture_default_str();
    app.add_option("--idle", idle, "idle reconnecting connections")->capture_default_str();
    app.add_option("--burst", burst, "connections opened at once, once")->capture_default_str();
    app.add_option("--burst-after", burst_after, "seconds before the burst")->capture_default_str();
    app.add_option("--dribble", dribble, "connections dribbling a hello")->capture_default_str();
    app.add_option("--dribble-ms", dribble_ms, "milliseconds between two bytes of a dribbled hello")
        ->capture_default_str();
    app.add_option("--reconnect-ms", reconnect_ms, "milliseconds before reconnecting a closed connection")
        ->capture_default_str();
    app.add_option("--seconds", seconds, "how long to flood")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    in_addr base{}, dst{};
    if (inet_pton(AF_INET, first.c_str(), &base) != 1 || inet_pton(AF_INET, target.c_str(), &dst) != 1) {
        std::fprintf(stderr, "zcflood: --source-first and --host take IPv4 addresses\n");
        return 2;
    }
    const std::string hello = zc::encode_message(zc::Hello{zc::kProtocolVersion, "zcflood", "", 0, ""});
    Counts c;
    std::vector<Conn> conns;
    auto start = Clock::now();
    for (int i = 0; i < idle; ++i) conns.push_back({Kind::idle, -1, false, 0, start, 0});
    for (int i = 0; i < dribble; ++i) conns.push_back({Kind::dribble, -1, false, 0, start, 0});
    for (int i = 0; i < burst; ++i) {
        conns.push_back({Kind::burst, -1, false, 0, start + std::chrono::milliseconds(int(burst_after * 1000)), 0});
    }
    for (size_t i = 0; i < conns.size(); ++i) conns[i].source = static_cast<uint32_t>(i % sources);

    auto open_one = [&](Conn& k) {
        k.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (k.fd < 0) {
            ++c.connect_errors;
            k.next = Clock::now() + std::chrono::milliseconds(100);
            return;
        }
        sockaddr_in src{};
        src.sin_family = AF_INET;
        src.sin_addr.s_addr = htonl(ntohl(base.s_addr) + k.source);
        ::bind(k.fd, reinterpret_cast<sockaddr*>(&src), sizeof(src));
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(static_cast<uint16_t>(port));
        to.sin_addr = dst;
        int rc = ::connect(k.fd, reinterpret_cast<sockaddr*>(&to), sizeof(to));
        k.connecting = rc != 0;
        k.sent = 0;
        k.next = Clock::now();
        if (rc != 0 && errno != EINPROGRESS) {
            ::close(k.fd);
            k.fd = -1;
            ++c.connect_errors;
            k.next = Clock::now() + std::chrono::milliseconds(100);
        } else {
            ++c.connects;
        }
    };
    auto closed = [&](Conn& k) {
        ::close(k.fd);
        k.fd = -1;
        k.connecting = false;
        k.next =
            k.kind == Kind::burst ? Clock::time_point::max() : Clock::now() + std::chrono::milliseconds(reconnect_ms);
    };

    const auto end = start + std::chrono::milliseconds(int(seconds * 1000));
    std::vector<pollfd> pfds;
    std::vector<size_t> which;
    while (Clock::now() < end && !g_stop) {
        auto now = Clock::now();
        pfds.clear();
        which.clear();
        size_t open_now = 0;
        for (size_t i = 0; i < conns.size(); ++i) {
            Conn& k = conns[i];
            if (k.fd < 0 && k.next <= now) open_one(k);
            if (k.fd < 0) continue;
            ++open_now;
            if (k.kind == Kind::dribble && !k.connecting && k.sent < hello.size() && k.next <= now) {
                if (::send(k.fd, hello.data() + k.sent, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1) {
                    if (++k.sent == hello.size()) ++c.hellos_completed;
                }
                k.next = now + std::chrono::milliseconds(dribble_ms);
            }
            pfds.push_back({k.fd, static_cast<short>(k.connecting ? POLLOUT : POLLIN), 0});
            which.push_back(i);
        }
        c.max_open = std::max(c.max_open, open_now);
        if (::poll(pfds.data(), pfds.size(), 5) <= 0) continue;
        for (size_t j = 0; j < pfds.size(); ++j) {
            if (!pfds[j].revents) continue;
            Conn& k = conns[which[j]];
            if (k.connecting) {
                int err = 0;
                socklen_t len = sizeof(err);
                getsockopt(k.fd, SOL_SOCKET, SO_ERROR, &err, &len);
                if (err) {
                    ++c.connect_errors;
                    closed(k);
                } else {
                    k.connecting = false;
                }
                continue;
            }
            char buf[2048];
            ssize_t n = ::recv(k.fd, buf, sizeof(buf), MSG_DONTWAIT);
            if (n > 0) {
                std::string_view got(buf, static_cast<size_t>(n));
                if (got.find("\"welcome\"") != std::string_view::npos) ++c.welcomes;
                if (got.find("\"error\"") == std::string_view::npos) continue;  // a welcome: stay, idle
                if (got.find(zc::kServerBusy) != std::string_view::npos) {
                    ++c.busy_refusals;
                } else if (got.find("handshake did not complete") != std::string_view::npos) {
                    ++c.handshake_timeouts;
                } else {
                    ++c.other_errors;
                }
                closed(k);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                ++c.closed_silently;
                closed(k);
            }
        }
    }
    for (auto& k : conns) {
        if (k.fd >= 0) ::close(k.fd);
    }
    std::printf(
        "{\"connects\": %ld, \"connect_errors\": %ld, \"busy_refusals\": %ld, \"handshake_timeouts\": %ld, "
        "\"other_errors\": %ld, \"closed_silently\": %ld, \"hellos_completed\": %ld, \"welcomes\": %ld, "
        "\"max_open\": %zu}\n",
        c.connects, c.connect_errors, c.busy_refusals, c.handshake_timeouts, c.other_errors, c.closed_silently,
        c.hellos_completed, c.welcomes, c.max_open);
    return 0;
}
