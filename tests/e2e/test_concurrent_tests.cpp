// Tests that share a host, over loopback: tests that overlap on one host are told of each other (two clients of one
// zcserver; two zcperf processes with their embedded servers), with the overlap and CPUs, in the JSON,
// the CSV and the live intervals; two tests pinned to one CPU are warned about it; zcserver --exclusive
// refuses a second client, naming the running test, or makes it wait as long as it asked.
// Each test gets its own run directory (ZCPERF_RUN_DIR), so tests of other people on this machine
// cannot appear in its reports.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "process.hpp"
#include "report.hpp"

namespace fs = std::filesystem;
using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// ZCPERF_RUN_DIR for every process this test starts.
struct OwnRunDir {
    fs::path root = fs::temp_directory_path() / ("zc-shared-" + std::to_string(getpid()) + "-" +
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    OwnRunDir() {
        fs::remove_all(root);
        setenv("ZCPERF_RUN_DIR", root.c_str(), 1);
    }
    ~OwnRunDir() {
        unsetenv("ZCPERF_RUN_DIR");
        fs::remove_all(root);
    }
};

bool any_warning(const json& r, const std::string& text) {
    return has_warning(r["local"], text) || has_warning(r["remote"], text);
}

// The entry of `side`'s shared_with whose program starts with `program`.
const json* shared_entry(const json& side, const std::string& program) {
    for (const auto& t : side["shared_with"])
        if (t["program"].get<std::string>().rfind(program, 0) == 0) return &t;
    return nullptr;
}

}  // namespace

TEST(ConcurrentTests, TwoClientsOfOneServerAreToldOfEachOther) {
    OwnRunDir own_dir;
    LocalServer server;
    // The long test, with live intervals; the short one starts while it measures.
    Process longer({zcperf_bin(), "-H", server.address(), "-l", "4", "-D", "0.5", "-o", "json"});
    std::this_thread::sleep_for(1500ms);
    Outcome shorter = run({zcperf_bin(), "-H", server.address(), "-l", "1", "-o", "json"}, 30s);
    Outcome first = longer.wait(30s);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(shorter.exit_code, 0) << shorter.err;
    json a = first_result(ok_report(first)), b = first_result(ok_report(shorter));
    ASSERT_FALSE(a.empty()) << first.out;
    ASSERT_FALSE(b.empty()) << shorter.out;
    // Each side of each test sees the other test's two sides (its client and its zcserver session),
    // never its own other side.
    for (const auto* r : {&a, &b}) {
        for (const char* side : {"local", "remote"}) {
            const json& s = (*r)[side];
            SCOPED_TRACE(std::string(r == &a ? "the long test's " : "the short test's ") + side);
            EXPECT_TRUE(s["whole_host_cpu_shared"].get<bool>()) << s.dump();
            ASSERT_EQ(s["shared_with"].size(), 2u) << s["shared_with"].dump();
            const json* session = shared_entry(s, "zcserver");
            const json* client = shared_entry(s, "zcperf");
            ASSERT_NE(session, nullptr) << s["shared_with"].dump();
            ASSERT_NE(client, nullptr) << s["shared_with"].dump();
            EXPECT_EQ((*session)["pid"].get<int>(), server.process().pid());
            EXPECT_EQ((*client)["peer"], server.address());
            EXPECT_EQ((*client)["test"], "tcp stream");
            // The short test measured about 1 s, all of it inside the long one's interval.
            EXPECT_GT((*client)["overlap_s"].get<double>(), 0.5);
            EXPECT_LT((*client)["overlap_s"].get<double>(), 2.5);
        }
    }
    EXPECT_NE(shared_entry(a["local"], "zcperf")->at("pid"), shared_entry(b["local"], "zcperf")->at("pid"));
    // The live intervals: some of the long test's are shared (the short test's second), not all.
    int shared = 0, alone = 0;
    for (const auto& row : a["intervals"]) (row["local"]["shared_tests"].get<int>() > 0 ? shared : alone)++;
    EXPECT_GT(shared, 0) << a["intervals"].dump();
    EXPECT_GT(alone, 0) << a["intervals"].dump();
}

TEST(ConcurrentTests, TwoEmbeddedServerRunsPinnedToOneCpuAreWarnedNamingIt) {
    OwnRunDir own_dir;
    Process longer({zcperf_bin(), "-l", "3", "--cpu", "0,1", "-o", "json"});
    std::this_thread::sleep_for(1000ms);
    Outcome shorter = run({zcperf_bin(), "-l", "1", "--cpu", "0,1", "-o", "csv"}, 30s);
    Outcome first = longer.wait(30s);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(shorter.exit_code, 0) << shorter.err;
    json a = first_result(ok_report(first));
    ASSERT_FALSE(a.empty()) << first.out;
    // The other zcperf registered twice, its client (data CPU 0) and its embedded server (CPU 1), in
    // whichever order their threads got there: the client's entry is the one on CPU 0.
    bool other_client_on_cpu0 = false;
    for (const auto& t : a["local"]["shared_with"])
        other_client_on_cpu0 |=
            t["program"].get<std::string>().rfind("zcperf", 0) == 0 && t["cpus"] == json::array({0});
    EXPECT_TRUE(other_client_on_cpu0) << a["local"]["shared_with"].dump();
    // Local data threads of both tests on CPU 0, both servers' on CPU 1.
    bool cpu0 = false, cpu1 = false;
    for (const auto& w : a["local"]["warnings"]) cpu0 |= w.get<std::string>().rfind("CPU 0 was the data CPU", 0) == 0;
    for (const auto& w : a["remote"]["warnings"]) cpu1 |= w.get<std::string>().rfind("CPU 1 was the data CPU", 0) == 0;
    EXPECT_TRUE(cpu0) << a["local"]["warnings"].dump();
    EXPECT_TRUE(cpu1) << a["remote"]["warnings"].dump();
    // CSV: the sharing columns, on both sides.
    std::istringstream csv(shorter.out);
    std::string header, row;
    std::getline(csv, header);
    std::getline(csv, row);
    EXPECT_NE(header.find("local_cpu_shared"), std::string::npos) << header;
    EXPECT_NE(header.find("remote_shared_with"), std::string::npos) << header;
    EXPECT_NE(row.find("zcperf "), std::string::npos) << row;
}

TEST(ConcurrentTests, ATestAloneSharesNothing) {
    OwnRunDir own_dir;
    Outcome o = run({zcperf_bin(), "-n", "8M", "-o", "json"}, 30s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    json r = first_result(ok_report(o));
    for (const char* side : {"local", "remote"}) {
        EXPECT_TRUE(r[side]["shared_with"].empty()) << r[side]["shared_with"].dump();
        EXPECT_FALSE(r[side]["whole_host_cpu_shared"].get<bool>());
    }
    EXPECT_FALSE(any_warning(r, "was the data CPU"));
}

TEST(ConcurrentTests, ExclusiveServerRefusesOrMakesTheSecondClientWait) {
    OwnRunDir own_dir;
    LocalServer server({"--exclusive"});
    Process longer({zcperf_bin(), "-H", server.address(), "-l", "3", "-o", "json"});
    std::this_thread::sleep_for(1000ms);
    // Refused at once, told why and what to do.
    Outcome refused = run({zcperf_bin(), "-H", server.address(), "-l", "1"}, 30s);
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_NE(refused.err.find("runs one test at a time (--exclusive)"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("tcp stream test has been running for"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("--server-wait SECS"), std::string::npos) << refused.err;
    // Waiting, bounded by --server-wait: it runs after the first and says how long it waited.
    Outcome waited = run({zcperf_bin(), "-H", server.address(), "-l", "1", "--server-wait", "20", "-o", "json"}, 40s);
    Outcome first = longer.wait(30s);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(waited.exit_code, 0) << waited.err;
    json w = first_result(ok_report(waited)), a = first_result(ok_report(first));
    EXPECT_TRUE(any_warning(w, "this one waited")) << w.dump();
    // One at a time: neither saw the other's session, only (possibly) the other's client, which is not a
    // test of this server's. The server's own side shared the host with no other session.
    EXPECT_EQ(shared_entry(w["remote"], "zcserver"), nullptr) << w["remote"]["shared_with"].dump();
    EXPECT_EQ(shared_entry(a["remote"], "zcserver"), nullptr) << a["remote"]["shared_with"].dump();
    // A wait too short for the test before it: refused after its bound, saying it waited.
    Process again({zcperf_bin(), "-H", server.address(), "-l", "3"});
    std::this_thread::sleep_for(1000ms);
    Outcome short_wait = run({zcperf_bin(), "-H", server.address(), "-l", "1", "--server-wait", "0.5"}, 30s);
    EXPECT_NE(short_wait.exit_code, 0);
    EXPECT_NE(short_wait.err.find("waited 0."), std::string::npos) << short_wait.err;
    EXPECT_EQ(again.wait(30s).exit_code, 0);
}
