// --interval end to end: real zcperf and zcserver processes over loopback. The intervals
// partition the result (their bytes add up to it exactly), come out while the test runs, and mark a
// stall; an older server gets a clear note, not a hang.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "process.hpp"
#include "report.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "system/host_info.hpp"
#include "core/unique_fd.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// The rows partition the counting side's measured interval: they start at 0, each where the last ended,
// the last where the result's interval ends, and their `count_field` adds up to `total` exactly.
void expect_partition(const json& rows, const char* count_field, uint64_t total, double elapsed_s) {
    ASSERT_FALSE(rows.empty());
    uint64_t sum = 0;
    double end = 0;
    for (const auto& row : rows) {
        EXPECT_DOUBLE_EQ(row["start_s"].get<double>(), end) << row.dump();
        end = row["end_s"].get<double>();
        sum += row[count_field].get<uint64_t>();
        for (const char* side : {"local", "remote"}) {
            if (row[side].is_null()) continue;
            EXPECT_GE(row[side]["cpu_util_pct"].get<double>(), 0.0);
            EXPECT_LE(row[side]["cpu_util_pct"].get<double>(), 100.0);
        }
    }
    EXPECT_EQ(sum, total) << count_field;
    EXPECT_NEAR(end, elapsed_s, 1e-9);
}

// Rows with both sides' halves: all but perhaps the last (a side's closing sliver).
void expect_both_sides(const json& rows) {
    size_t both = 0;
    for (const auto& row : rows) both += !row["local"].is_null() && !row["remote"].is_null();
    EXPECT_GE(both + 1, rows.size()) << rows.dump();
}

}  // namespace

TEST(Intervals, StreamAndMaertsRowsAddUpToTheResultExactly) {
    LocalServer server;
    for (const char* test : {"stream", "maerts"}) {
        SCOPED_TRACE(test);
        json j = ok_report(run(
            {zcperf_bin(), "-H", server.address(), "-t", test, "-l", "2", "-D", "0.25", "-m", "64K", "-o", "json"}));
        const json& r = j["results"][0];
        EXPECT_DOUBLE_EQ(r["interval_s"].get<double>(), 0.25);
        const json& rows = r["intervals"];
        // 2 s / 0.25 s: eight, the edge at the 2 s deadline being left out (the last runs to the end).
        EXPECT_GE(rows.size(), 7u);
        EXPECT_LE(rows.size(), 9u);
        expect_partition(rows, "bytes", r["bytes"].get<uint64_t>(), r["elapsed_s"].get<double>());
        expect_both_sides(rows);
        size_t moving = 0;
        for (const auto& row : rows) moving += row["throughput_gbps"].get<double>() > 0 && !row["stall"].get<bool>();
        EXPECT_EQ(moving, rows.size()) << "nothing stalled here";
    }
}

// Every TCP sender path, every receive mode and GPU staging (sim-gpu: the staged loops without a GPU).
TEST(Intervals, EveryTcpPathAddsUp) {
    LocalServer server;
    const std::vector<std::vector<std::string>> cases = {{"-T", "tcp-sendfile"},
                                                         {"-T", "tcp-msgzc"},
                                                         {"-T", "tcp-uringzc"},
                                                         {"-T", "tcp", "--rx", "zerocopy"},
                                                         {"-T", "tcp", "--rx", "splice"},
                                                         {"-T", "tcp", "--rx", "trunc"},
                                                         {"-T", "tcp", "--buffer", "sim-gpu,sim-gpu"}};
    for (const auto& extra : cases) {
        std::vector<std::string> argv{zcperf_bin(), "-H",  server.address(), "-l", "1", "-D", "0.25", "-m", "64K",
                                      "-o",         "json"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        SCOPED_TRACE(extra[1] + (extra.size() > 2 ? " " + extra[2] + " " + extra[3] : std::string()));
        json j = ok_report(run(argv));
        const json& r = j["results"][0];
        expect_partition(r["intervals"], "bytes", r["bytes"].get<uint64_t>(), r["elapsed_s"].get<double>());
        expect_both_sides(r["intervals"]);
    }
}

TEST(Intervals, MessageTestsCountTransactionsAndMessages) {
    LocalServer server;
    json rr = ok_report(
        run({zcperf_bin(), "-H", server.address(), "-t", "rr", "-l", "1", "-D", "0.2", "-P", "2", "-o", "json"}));
    const json& r = rr["results"][0];
    expect_partition(r["intervals"], "transactions", r["rr"]["transactions"].get<uint64_t>(),
                     r["local"]["elapsed_s"].get<double>());
    for (const auto& row : r["intervals"]) {
        EXPECT_GT(row["transactions_per_s"].get<double>(), 0.0);
        EXPECT_GT(row["local"]["rtt_p50_us"].get<double>(), 0.0) << row.dump();
        EXPECT_GE(row["local"]["rtt_p99_us"].get<double>(), row["local"]["rtt_p50_us"].get<double>());
    }
    json mr =
        ok_report(run({zcperf_bin(), "-H", server.address(), "-t", "msgrate", "-l", "1", "-D", "0.2", "-o", "json"}));
    const json& m = mr["results"][0];
    expect_partition(m["intervals"], "messages", m["msgrate"]["messages"].get<uint64_t>(),
                     m["remote"]["elapsed_s"].get<double>());
}

TEST(Intervals, ByteTotalsStreamsAndRepetitionsStillAddUp) {
    LocalServer server;
    json a = ok_report(run(
        {zcperf_bin(), "-H", server.address(), "-n", "300000007", "-P", "3", "-m", "64K", "-D", "0.05", "-o", "json"}));
    const json& r = a["results"][0];
    EXPECT_EQ(r["bytes"].get<uint64_t>(), 300000007u);
    expect_partition(r["intervals"], "bytes", 300000007u, r["elapsed_s"].get<double>());
    // -i 2,2: each run's rows, tagged with the run, each run's times from its own start.
    json b = ok_report(
        run({zcperf_bin(), "-H", server.address(), "-l", "1", "-D", "0.5", "-m", "64K", "-i", "2,2", "-o", "json"}));
    const json& m = b["results"][0];
    uint64_t sum = 0;
    std::set<int> runs;
    for (const auto& row : m["intervals"]) {
        sum += row["bytes"].get<uint64_t>();
        runs.insert(row["iteration"].get<int>());
    }
    EXPECT_EQ(sum, m["bytes"].get<uint64_t>());
    EXPECT_EQ(runs, (std::set<int>{1, 2}));
}

// One JSON object a line, the interval lines out while the test still runs.
TEST(Intervals, JsonStreamLinesArriveBeforeTheEnd) {
    LocalServer server;
    Process client({zcperf_bin(), "-H", server.address(), "-l", "3", "-D", "0.25", "-m", "64K", "--json-stream"});
    auto give_up = std::chrono::steady_clock::now() + 20s;
    size_t early = 0;
    std::string so_far;
    while (std::chrono::steady_clock::now() < give_up) {
        so_far = client.stdout_so_far();
        early = 0;
        for (size_t at = so_far.find("\"event\":\"interval\""); at != std::string::npos;
             at = so_far.find("\"event\":\"interval\"", at + 1))
            ++early;
        if (early >= 3) break;
        std::this_thread::sleep_for(50ms);
    }
    EXPECT_GE(early, 3u) << so_far << client.stderr_so_far();
    EXPECT_EQ(so_far.find("\"event\":\"result\""), std::string::npos) << "the intervals came only with the result";
    Outcome o = client.wait(60s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::istringstream lines(o.out);
    std::string line;
    std::vector<json> events;
    while (std::getline(lines, line)) {
        json j = json::parse(line, nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << line;
        events.push_back(j);
    }
    ASSERT_GE(events.size(), 4u);
    EXPECT_EQ(events.front()["event"], "start");
    EXPECT_EQ(events.back()["event"], "end");
    uint64_t sum = 0, total = 0;
    bool result_seen = false;
    for (const auto& e : events) {
        if (e["event"] == "interval") {
            EXPECT_FALSE(result_seen) << "an interval after its result";
            EXPECT_EQ(e["test"], "stream");
            sum += e["bytes"].get<uint64_t>();
        }
        if (e["event"] == "result") {
            result_seen = true;
            total = e["result"]["bytes"].get<uint64_t>();
        }
    }
    EXPECT_TRUE(result_seen);
    EXPECT_EQ(sum, total);
}

// The server is stopped (SIGSTOP) for 1.5 s in the middle of a maerts test: the client, receiving,
// counts nothing for several intervals, and says so; the server's halves of them arrive late (its
// sampler wakes once, late, and skips the edges it slept through) and the rows still add up.
TEST(Intervals, StoppedServerShowsAsStalls) {
    json r;
    for (int attempt = 0; attempt < 3; ++attempt) {
        LocalServer server;
        Process client(
            {zcperf_bin(), "-H", server.address(), "-t", "maerts", "-l", "2", "-D", "0.25", "-m", "64K", "-o", "json"});
        ASSERT_TRUE(server.process().wait_for_stderr("on data port", 20s)) << server.process().stderr_so_far();
        std::this_thread::sleep_for(700ms);
        server.process().signal(SIGSTOP);
        std::this_thread::sleep_for(1500ms);
        server.process().signal(SIGCONT);
        json j = ok_report(client.wait(60s));
        ASSERT_EQ(j["results"].size(), 1u);
        r = j["results"][0];
        if (r["setup_ms"].get<double>() < 2000) break;  // the stop fell in the measured interval
    }
    ASSERT_LT(r["setup_ms"].get<double>(), 2000) << "the stop fell in the set-up three times";
    const json& rows = r["intervals"];
    expect_partition(rows, "bytes", r["bytes"].get<uint64_t>(), r["elapsed_s"].get<double>());
    size_t stalls = 0;
    for (const auto& row : rows) {
        if (!row["stall"].get<bool>()) continue;
        ++stalls;
        EXPECT_EQ(row["bytes"].get<uint64_t>(), 0u);
        EXPECT_EQ(row["throughput_gbps"].get<double>(), 0.0);
    }
    // 1.5 s stopped = six intervals of 0.25 s; the socket buffers drain in the first.
    EXPECT_GE(stalls, 4u) << rows.dump();
}

TEST(Intervals, CsvIntervalsFileHasARowPerInterval) {
    LocalServer server;
    std::string path = ::testing::TempDir() + "zcperf_intervals_" + std::to_string(getpid()) + ".csv";
    json j = ok_report(run({zcperf_bin(), "-H", server.address(), "-l", "1", "-D", "0.25", "-m", "64K",
                            "--csv-intervals", path, "-o", "json"}));
    std::ifstream f(path);
    std::string header, line;
    ASSERT_TRUE(std::getline(f, header));
    std::vector<std::string> names;
    std::stringstream hs(header);
    for (std::string cell; std::getline(hs, cell, ',');) names.push_back(cell);
    size_t bytes_col = std::find(names.begin(), names.end(), "bytes") - names.begin();
    ASSERT_LT(bytes_col, names.size());
    size_t rows = 0;
    uint64_t sum = 0;
    while (std::getline(f, line)) {
        std::vector<std::string> cells;
        std::stringstream ls(line);
        for (std::string cell; std::getline(ls, cell, ',');) cells.push_back(cell);
        ASSERT_GT(cells.size(), bytes_col) << line;
        sum += std::stoull(cells[bytes_col]);
        ++rows;
    }
    unlink(path.c_str());
    EXPECT_EQ(rows, j["results"][0]["intervals"].size());
    EXPECT_EQ(sum, j["results"][0]["bytes"].get<uint64_t>());
}

TEST(Intervals, BadIntervalsAreUsageErrors) {
    Outcome a = run({zcperf_bin(), "-D", "0.001"}, 10s);
    EXPECT_EQ(a.exit_code, 2);
    EXPECT_NE(a.err.find("0.01 s or more"), std::string::npos) << a.err;
    Outcome b = run({zcperf_bin(), "-l", "2", "--interval", "5"}, 10s);
    EXPECT_EQ(b.exit_code, 2);
    EXPECT_NE(b.err.find("longer than the test"), std::string::npos) << b.err;
}

// A server from before --interval: its welcome lists no features. The client says so at once and
// goes on (here the stand-in refuses the test itself): no wait for samples that never come.
TEST(Intervals, OlderServerGetsAClearNoteNotAHang) {
    zc::UniqueFd listener(socket(AF_INET, SOCK_STREAM, 0));
    ASSERT_TRUE(listener);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ASSERT_EQ(listen(listener.get(), 1), 0);
    socklen_t len = sizeof(a);
    getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &len);
    std::thread old_server([&] {
        zc::UniqueFd c(accept(listener.get(), nullptr, nullptr));
        if (!c) return;
        try {
            zc::read_frame(c.get(), zc::kMaxRequestBody, 10s);  // hello
            zc::Welcome w;
            w.software = "zcserver 0.9 (before --interval)";
            w.has_host = true;
            w.host = zc::probe_host();
            w.host.boot_id = "another-host";
            zc::write_all(c.get(), zc::encode_message(w), 5s);
            zc::read_frame(c.get(), zc::kMaxRequestBody, 10s);  // setup
            zc::write_all(c.get(), zc::encode_message(zc::ErrorMsg{"a stand-in server: no tests here"}), 5s);
        } catch (const std::exception&) {}
    });
    Outcome o =
        run({zcperf_bin(), "-H", "127.0.0.1:" + std::to_string(ntohs(a.sin_port)), "-l", "2", "-D", "0.5"}, 20s);
    old_server.join();
    EXPECT_FALSE(o.timed_out);
    EXPECT_LT(o.seconds, 10.0);
    EXPECT_NE(o.err.find("sends no interval samples"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("same zcperf release on both hosts"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("a stand-in server"), std::string::npos) << o.err;
}
