// Control-port floods: zcserver stays reachable while an attacker floods its control port from 64 loopback
// addresses (127.0.0.2..65, as several hosts would): 70 idle connections that reconnect 20 ms after
// each close, a burst of 400 idle ones, 20 that dribble a valid hello one byte every 100 ms (longer
// than the handshake deadline), all from zcflood, a separate process. Meanwhile real zcperf clients
// run from 127.0.0.1: at least 90 % must move their exact bytes, and zcserver's memory (VmRSS) and
// open descriptors must stay bounded. Then the same with --auth-key-file.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr int kLanes = 4;        // real clients running side by side
constexpr int kRunsPerLane = 6;  // one after another in each lane
constexpr uint64_t kBytes = 8ull << 20;
constexpr int kFloodSeconds = 16;
constexpr int kStartupsFull = 256;  // zcserver's default --max-startups 64:30:256

struct Usage {
    long rss_kib = 0;
    int fds = 0;
};

Usage usage_of(pid_t pid) {
    Usage u;
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) u.rss_kib = std::stol(line.substr(6));
    }
    if (DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
        while (dirent* e = readdir(d)) u.fds += e->d_name[0] != '.';
        closedir(d);
    }
    return u;
}

bool exact_bytes(const Outcome& o) {
    if (o.timed_out || o.exit_code != 0) return false;
    json j = report_json(o);
    if (!j.is_object() || j["results"].size() != 1) return false;
    const json& r = j["results"][0];
    return r["local"]["bytes"] == kBytes && r["remote"]["bytes"] == kBytes;
}

std::string key_file() {
    std::string path = "/tmp/zc-flood-key-" + std::to_string(getpid());
    std::ofstream(path) << "0123456789abcdef-flood-test-key\n";
    chmod(path.c_str(), 0600);
    return path;
}

void flood_while_clients_run(const std::vector<std::string>& auth) {
    LocalServer server(auth);
    std::vector<std::string> client = {zcperf_bin(), "-H", server.address(), "-n", "8M", "-m", "64K", "-o", "json"};
    client.insert(client.end(), auth.begin(), auth.end());
    ASSERT_TRUE(exact_bytes(run(client, 20s))) << "no client gets through even before the flood";
    const pid_t pid = server.process().pid();
    const Usage before = usage_of(pid);  // after one test: its buffers are part of the baseline

    Process flood({ZCFLOOD_BIN,
                   "--port",
                   std::to_string(server.port()),
                   "--source-first",
                   "127.0.0.2",
                   "--sources",
                   "64",
                   "--idle",
                   "70",
                   "--reconnect-ms",
                   "20",
                   "--burst",
                   "400",
                   "--burst-after",
                   "3",
                   "--dribble",
                   "20",
                   "--dribble-ms",
                   "100",
                   "--seconds",
                   std::to_string(kFloodSeconds)});
    std::this_thread::sleep_for(1s);  // the flood is up before the clients start

    std::atomic<int> ok{0}, done{0};
    std::vector<std::string> failures;
    std::mutex mu;
    std::vector<std::thread> lanes;
    for (int l = 0; l < kLanes; ++l) {
        lanes.emplace_back([&] {
            for (int i = 0; i < kRunsPerLane; ++i) {
                Outcome o = run(client, 30s);
                ++done;
                if (exact_bytes(o)) {
                    ++ok;
                } else {
                    std::lock_guard lock(mu);
                    failures.push_back("exit " + std::to_string(o.exit_code) + ": " + o.err.substr(0, 600) +
                                       " | stdout: " + o.out.substr(0, 1500));
                }
            }
        });
    }
    Usage peak = before;
    while (done.load() < kLanes * kRunsPerLane) {
        Usage u = usage_of(pid);
        peak.rss_kib = std::max(peak.rss_kib, u.rss_kib);
        peak.fds = std::max(peak.fds, u.fds);
        std::this_thread::sleep_for(50ms);
    }
    for (auto& t : lanes) t.join();
    Outcome f = flood.wait(std::chrono::seconds(kFloodSeconds + 10));
    ASSERT_FALSE(f.timed_out) << f.err;
    json fj = report_json(f);
    ASSERT_TRUE(fj.is_object()) << f.out << f.err;
    Usage after = usage_of(pid);

    const int total = kLanes * kRunsPerLane;
    std::cout << "[          ] " << ok.load() << " of " << total << " real clients moved exact bytes during the flood\n"
              << "[          ] zcflood: " << fj.dump() << "\n"
              << "[          ] zcserver VmRSS " << before.rss_kib << " KiB before, " << peak.rss_kib << " KiB at most, "
              << after.rss_kib << " KiB after; descriptors " << before.fds << " before, " << peak.fds << " at most, "
              << after.fds << " after\n";
    for (const auto& why : failures) std::cout << "[          ] failed client: " << why << "\n";
    EXPECT_GE(ok.load() * 10, total * 9) << "fewer than 90 % of the real clients got through";

    // The flood was real: the server turned connections away for being busy and timed out the rest.
    EXPECT_GE(fj["connects"].get<long>(), 490);
    EXPECT_GT(fj["busy_refusals"].get<long>(), 0);
    EXPECT_GT(fj["handshake_timeouts"].get<long>(), 0);
    EXPECT_EQ(fj["hellos_completed"].get<long>(), 0) << "a dribbled hello finished within the deadline";
    EXPECT_EQ(fj["other_errors"].get<long>(), 0);

    // Bounded: one descriptor per connection in its handshake (at most --max-startups' FULL), a few
    // per real client's session, and nothing per refused connection; no memory per idle socket.
    EXPECT_LE(peak.fds, before.fds + kStartupsFull + kLanes * 4);
    EXPECT_LE(peak.rss_kib - before.rss_kib, 16 * 1024);

    // Still serving after the flood, and the refusals were summed up, not logged one by one.
    EXPECT_TRUE(exact_bytes(run(client, 20s)));
    std::string log = server.process().stderr_so_far();
    size_t lines = std::count(log.begin(), log.end(), '\n');
    long turned_away = fj["busy_refusals"].get<long>() + fj["handshake_timeouts"].get<long>();
    std::cout << "[          ] zcserver logged " << lines << " lines for " << turned_away
              << " connections turned away\n";
    EXPECT_NE(log.find("summed up when it ends"), std::string::npos);
    EXPECT_LT(lines * 5, static_cast<size_t>(turned_away)) << log.substr(0, 3000);
}

}  // namespace

TEST(Flood, RealClientsGetThroughIdleBurstAndDribblingConnections) { flood_while_clients_run({}); }

TEST(Flood, RealClientsGetThroughWithAuthKey) {
    std::string key = key_file();
    flood_while_clients_run({"--auth-key-file", key});
    unlink(key.c_str());
}
