// Load: one zcserver serving 50 honest zcperf clients at once while misbehaving raw clients hit it
// from threads: connect and vanish, garbage, a frame header then a stall mid-body, a hello and then
// a close (before, during set-up and in the middle of a test). Every honest client must move its
// exact bytes, every misbehaving one must end only its own session, and the server must serve a
// normal client afterwards. Bounded: every wait has a deadline, and no process is left behind.
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "process.hpp"
#include "report.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "tcp/tcp_socket.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr int kHonestClients = 50;
constexpr uint64_t kHonestBytes = 8ull << 20;  // -n 8M
constexpr int kVanishers = 120;                // connect and close at once (half of them with a reset)
constexpr int kGarbage = 40;                   // bytes that are not the protocol (or a frame of junk)
constexpr int kStallers = 20;                  // a frame header and part of its body, then nothing
constexpr int kHelloClosers = 24;              // hello, then gone: idle, with a test set up, mid-test
// 50 + 204 connections in all, more than --max-sessions 200: a session that is never counted down
// would have the server refuse the last client. Everything here comes from 127.0.0.1, so the
// handshake limits (--max-startups, per source) are raised out of the way: this test is about
// sessions that misbehave; test_flood.cpp is about those limits.

const auto kHandshakeTimeout = 5s;  // zcserver's default --handshake-timeout

// One raw control connection, spoken with the library's own codec.
class Raw {
public:
    explicit Raw(uint16_t port) : fd_(zc::connect_tcp({"127.0.0.1", port}, 5s)) {}
    int fd() const { return fd_.get(); }
    void send_bytes(std::string_view bytes) { zc::write_all(fd_.get(), bytes, 5s); }
    void send(const zc::Message& m) { send_bytes(zc::encode_message(m)); }
    zc::Message receive(std::chrono::milliseconds timeout = 10s) {
        return zc::decode_body(zc::read_frame(fd_.get(), zc::kMaxReplyBody, timeout));
    }
    // Close with a reset instead of a FIN: the peer sees ECONNRESET.
    void reset() {
        linger l{1, 0};
        setsockopt(fd_.get(), SOL_SOCKET, SO_LINGER, &l, sizeof(l));
        fd_.reset();
    }
    void close() { fd_.reset(); }
    // True when the server closed its end within `limit` (EOF or reset), reading whatever came first.
    bool closed_by_peer_within(std::chrono::milliseconds limit) {
        auto deadline = std::chrono::steady_clock::now() + limit;
        char buf[4096];
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd p{fd_.get(), POLLIN, 0};
            if (poll(&p, 1, 100) <= 0) continue;
            ssize_t n = recv(fd_.get(), buf, sizeof(buf), MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
        }
        return false;
    }

private:
    zc::UniqueFd fd_;
};

std::string reason_of(const zc::Message& m) {
    if (const auto* e = std::get_if<zc::ErrorMsg>(&m)) return e->reason;
    return std::string("(no error: ") + zc::message_name(m) + ")";
}

zc::Hello hello() {
    zc::Hello h;
    h.software = "zcperf load test";
    return h;
}

// A test the raw client sets up but never finishes: 1 GiB, far more than it will send.
zc::HalfSpec long_stream() {
    zc::HalfSpec s;
    s.transport = zc::transport_named("tcp");
    s.test = zc::Workload::stream;
    s.message_size = 64 * 1024;
    s.total_bytes = 1ull << 30;
    s.duration_s = 0;
    s.streams = 1;
    return s;
}

template <class T>
T expect_message(Raw& c, const char* what) {
    zc::Message m = c.receive();
    if (const auto* t = std::get_if<T>(&m)) return *t;
    throw std::runtime_error(std::string(what) + ": got " + zc::message_name(m) + " " + reason_of(m));
}

// Collects what the client threads saw; checked on the main thread.
struct Tally {
    std::atomic<int> vanished{0}, garbage_refused{0}, stalls_dropped{0}, hello_closed{0}, setup_closed{0},
        mid_test_closed{0};
    std::mutex mu;
    std::vector<std::string> problems;
    void problem(const std::string& p) {
        std::lock_guard lock(mu);
        problems.push_back(p);
    }
};

void vanish(uint16_t port, int i, Tally& t) {
    try {
        Raw c(port);
        if (i % 2) {
            c.reset();
        } else {
            c.close();
        }
        ++t.vanished;
    } catch (const std::exception& e) {
        t.problem("vanisher " + std::to_string(i) + ": " + e.what());
    }
}

void garbage(uint16_t port, int i, Tally& t) {
    std::mt19937 rng(1000 + i);
    std::string bytes(1 + rng() % 2048, '\0');
    for (auto& b : bytes) b = static_cast<char>(rng());
    std::string expect;
    if (i % 2) {
        if (bytes[0] == 'Z') bytes[0] = 'z';
        expect = "does not speak the zcperf control protocol";
    } else {
        bytes[0] = '{';  // a frame whose body is junk
        bytes = zc::encode_frame(bytes);
        expect = "not valid JSON";
    }
    try {
        Raw c(port);
        c.send_bytes(bytes);
        std::string reason = reason_of(c.receive());
        if (reason.find(expect) == std::string::npos) {
            t.problem("garbage " + std::to_string(i) + ": '" + reason + "' lacks '" + expect + "'");
            return;
        }
        if (!c.closed_by_peer_within(5s)) {
            t.problem("garbage " + std::to_string(i) + ": the server kept the connection open after its error");
            return;
        }
        ++t.garbage_refused;
    } catch (const std::exception& e) {
        t.problem("garbage " + std::to_string(i) + ": " + e.what());
    }
}

// Opens every stalled connection first, then waits for the server to drop each one.
void stallers(uint16_t port, Tally& t) {
    std::vector<std::unique_ptr<Raw>> conns;
    try {
        for (int i = 0; i < kStallers; ++i) {
            std::string frame = zc::encode_message(hello());
            frame.resize(frame.size() / 2);  // the whole header, half the body
            conns.push_back(std::make_unique<Raw>(port));
            conns.back()->send_bytes(frame);
        }
    } catch (const std::exception& e) {
        t.problem(std::string("staller: ") + e.what());
        return;
    }
    for (size_t i = 0; i < conns.size(); ++i) {
        try {
            std::string reason = reason_of(conns[i]->receive(kHandshakeTimeout + 10s));
            if (reason.find("the handshake did not complete within") == std::string::npos) {
                t.problem("staller " + std::to_string(i) + ": unexpected '" + reason + "'");
            } else if (!conns[i]->closed_by_peer_within(5s)) {
                t.problem("staller " + std::to_string(i) + ": the server kept the connection open after its error");
            } else {
                ++t.stalls_dropped;
            }
        } catch (const std::exception& e) {
            t.problem("staller " + std::to_string(i) + ": " + e.what());
        }
    }
}

// Hello, then one of three ways to go away: idle after the welcome, with a test set up but no data
// connection, or in the middle of a test with data flowing.
void hello_then_close(uint16_t port, int i, Tally& t) {
    std::mt19937 rng(2000 + i);
    try {
        Raw c(port);
        c.send(hello());
        expect_message<zc::Welcome>(c, "after hello");
        std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 1000));
        if (i % 3 == 0) {
            c.close();
            ++t.hello_closed;
            return;
        }
        c.send(zc::Setup{long_stream()});
        auto ready = expect_message<zc::Ready>(c, "after setup");
        if (i % 3 == 1) {
            std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 500));
            c.reset();
            ++t.setup_closed;
            return;
        }
        zc::UniqueFd data = zc::connect_tcp({"127.0.0.1", ready.data_port}, 5s);
        zc::write_all(data.get(), std::string_view(reinterpret_cast<const char*>(&ready.token), sizeof(ready.token)),
                      5s);
        c.send(zc::Start{});
        expect_message<zc::Started>(c, "after start");
        std::string chunk(64 * 1024, 'x');
        for (int k = 0; k < 32; ++k) zc::write_all(data.get(), chunk, 5s);  // 2 MiB of the 1 GiB
        if (i % 2) {
            c.reset();
            data.reset();
        } else {
            data.reset();
            c.close();
        }
        ++t.mid_test_closed;
    } catch (const std::exception& e) {
        t.problem("hello-closer " + std::to_string(i) + ": " + e.what());
    }
}

void expect_exact_report(const Outcome& o, const std::string& who) {
    ASSERT_FALSE(o.timed_out) << who << " timed out: " << o.err;
    ASSERT_EQ(o.exit_code, 0) << who << ": " << o.err;
    json j = report_json(o);
    ASSERT_TRUE(j.is_object()) << who << ": " << o.out;
    ASSERT_EQ(j["results"].size(), 1u) << who << ": " << o.out;
    const json& r = j["results"][0];
    EXPECT_EQ(r["bytes"].get<uint64_t>(), kHonestBytes) << who;
    EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), kHonestBytes) << who;
    EXPECT_EQ(r["remote"]["bytes"].get<uint64_t>(), kHonestBytes) << who;
    EXPECT_EQ(r["local"]["stream_bytes"], json({kHonestBytes})) << who;
    EXPECT_EQ(r["remote"]["stream_bytes"], json({kHonestBytes})) << who;
    EXPECT_EQ(r["local"]["role"], "send") << who;
    EXPECT_EQ(r["remote"]["role"], "recv") << who;
}

std::vector<std::string> honest_argv(const LocalServer& server) {
    return {zcperf_bin(), "-H", server.address(), "-n", "8M", "-m", "64K", "-o", "json"};
}

// Processes whose parent is this test process, by /proc.
std::vector<std::string> children_of_this_process() {
    std::vector<std::string> out;
    DIR* d = opendir("/proc");
    if (!d) return out;
    std::string me = std::to_string(getpid());
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
        std::string line;
        if (!std::getline(f, line)) continue;
        auto close_paren = line.rfind(')');
        if (close_paren == std::string::npos) continue;
        std::istringstream rest(line.substr(close_paren + 1));
        std::string state, ppid;
        rest >> state >> ppid;
        if (ppid == me) out.push_back(line.substr(0, close_paren + 1) + " " + state);
    }
    closedir(d);
    return out;
}

}  // namespace

TEST(Load, FiftyHonestClientsAmongMisbehavingOnesAllGetExactBytes) {
    auto t0 = std::chrono::steady_clock::now();
    {
        LocalServer server({"--max-sessions", "200", "--max-startups", "400", "--max-startups-per-source", "400"});
        const uint16_t port = server.port();
        Tally tally;

        // The misbehaving clients, from threads, while the honest ones run.
        std::vector<std::thread> threads;
        threads.emplace_back([&] { stallers(port, tally); });
        for (int w = 0; w < 2; ++w) {
            threads.emplace_back([&, w] {
                for (int i = w; i < kVanishers; i += 2) {
                    vanish(port, i, tally);
                    std::this_thread::sleep_for(20ms);
                }
            });
            threads.emplace_back([&, w] {
                for (int i = w; i < kGarbage; i += 2) {
                    garbage(port, i, tally);
                    std::this_thread::sleep_for(50ms);
                }
            });
        }
        for (int w = 0; w < 6; ++w) {
            threads.emplace_back([&, w] {
                for (int i = w; i < kHelloClosers; i += 6) hello_then_close(port, i, tally);
            });
        }

        // The honest clients, all at once.
        std::vector<std::unique_ptr<Process>> honest;
        for (int i = 0; i < kHonestClients; ++i) honest.push_back(std::make_unique<Process>(honest_argv(server)));
        auto deadline = std::chrono::steady_clock::now() + 40s;
        for (int i = 0; i < kHonestClients; ++i) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            Outcome o = honest[i]->wait(std::max(left, std::chrono::milliseconds(1)));
            expect_exact_report(o, "honest client " + std::to_string(i));
        }
        honest.clear();
        for (auto& th : threads) th.join();  // each bounded by its own timeouts

        for (const auto& p : tally.problems) ADD_FAILURE() << p;
        EXPECT_EQ(tally.vanished.load(), kVanishers);
        EXPECT_EQ(tally.garbage_refused.load(), kGarbage);
        EXPECT_EQ(tally.stalls_dropped.load(), kStallers);
        EXPECT_EQ(tally.hello_closed.load() + tally.setup_closed.load() + tally.mid_test_closed.load(), kHelloClosers);
        EXPECT_EQ(tally.mid_test_closed.load(), kHelloClosers / 3);

        // Still serving, with every session above counted down (254 so far, over --max-sessions).
        Outcome after = run(honest_argv(server), 20s);
        expect_exact_report(after, "the client after the load");
        std::string log = server.process().stderr_so_far();
        EXPECT_EQ(log.find("already serves"), std::string::npos) << "sessions were refused:\n" << log.substr(0, 4000);
        EXPECT_NE(log.find("went away"), std::string::npos);
        auto count = [&](const std::string& what) {
            size_t n = 0;
            for (size_t at = log.find(what); at != std::string::npos; at = log.find(what, at + 1)) ++n;
            return n;
        };
        // Every connection that said hello became a session: 50 + 24 + 1. The others ended in their
        // handshake, which the log sums up per burst instead of a line each.
        EXPECT_EQ(count(" connected\n"), static_cast<size_t>(kHonestClients + kHelloClosers + 1));
        EXPECT_GE(count("summed up when it ends"), 1u) << log.substr(0, 4000);
        std::cout << "[          ] zcserver: " << count(" connected\n") << " sessions, " << count("went away")
                  << " went away, " << count("test failed") << " tests failed, " << count("summed up when it ends")
                  << " bursts of handshake failures\n";
        // It is still the same process, alive and not a zombie.
        std::ifstream stat("/proc/" + std::to_string(server.process().pid()) + "/stat");
        std::string line;
        ASSERT_TRUE(std::getline(stat, line)) << "zcserver is gone:\n"
                                              << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
        EXPECT_EQ(line.find(") Z"), std::string::npos) << "zcserver exited:\n"
                                                       << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
    }
    // Nothing left behind: the server and every client have been reaped.
    EXPECT_TRUE(children_of_this_process().empty()) << ::testing::PrintToString(children_of_this_process());
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(seconds, 60.0);
    std::cout << "[          ] load test took " << seconds << " s\n";
}
