// The daemon's guards: shared-secret authentication and the per-session limits, each refusal a
// clear reason, and the daemon serving on.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>
#include <vector>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "report.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "tcp/tcp_socket.hpp"

using namespace zc::e2e;
using namespace std::chrono_literals;

namespace {

std::string key_file(const std::string& name, const std::string& key, mode_t mode = 0600) {
    std::string path = "/tmp/zc-key-" + std::to_string(getpid()) + "-" + name;
    std::ofstream(path) << key << "\n";
    chmod(path.c_str(), mode);
    return path;
}

}  // namespace

TEST(Security, SharedKeyIsRequiredCheckedAndAccepted) {
    std::string good = key_file("good", "0123456789abcdef-the-right-key");
    std::string bad = key_file("bad", "0123456789abcdef-another-key!!");
    LocalServer server({"--auth-key-file", good});

    auto none = run({zcperf_bin(), "-H", server.address(), "-n", "4M"}, 20s);
    EXPECT_EQ(none.exit_code, 1);
    EXPECT_NE(none.err.find("requires authentication"), std::string::npos) << none.err;

    auto wrong = run({zcperf_bin(), "-H", server.address(), "-n", "4M", "--auth-key-file", bad}, 20s);
    EXPECT_EQ(wrong.exit_code, 1);
    EXPECT_NE(wrong.err.find("could not prove the shared key"), std::string::npos) << wrong.err;

    auto right = run({zcperf_bin(), "-H", server.address(), "-n", "4M", "-o", "json", "--auth-key-file", good}, 20s);
    ASSERT_EQ(right.exit_code, 0) << right.err;
    EXPECT_EQ(report_json(right)["results"][0]["bytes"].get<uint64_t>(), 4ull << 20);
    unlink(good.c_str());
    unlink(bad.c_str());
}

TEST(Security, UnauthenticatedClientLearnsNothingAndCannotSkipAhead) {
    std::string good = key_file("skip", "0123456789abcdef-the-right-key");
    LocalServer server({"--auth-key-file", good});
    zc::UniqueFd fd = zc::connect_tcp({"127.0.0.1", server.port()}, 2s);
    zc::write_all(fd.get(), zc::encode_message(zc::Hello{}), 2s);
    auto w = zc::decode_body(zc::read_frame(fd.get(), zc::kMaxReplyBody, 5s));
    ASSERT_TRUE(std::holds_alternative<zc::Welcome>(w));
    EXPECT_FALSE(std::get<zc::Welcome>(w).has_host) << "host facts sent before authentication";
    EXPECT_EQ(std::get<zc::Welcome>(w).auth_challenge.size(), 64u);
    zc::HalfSpec spec;
    spec.message_size = 65536;
    spec.total_bytes = 1 << 20;
    zc::write_all(fd.get(), zc::encode_message(zc::Setup{spec}), 2s);
    auto e = zc::decode_body(zc::read_frame(fd.get(), zc::kMaxReplyBody, 5s));
    ASSERT_TRUE(std::holds_alternative<zc::ErrorMsg>(e));
    EXPECT_NE(std::get<zc::ErrorMsg>(e).reason.find("requires authentication first"), std::string::npos);
    unlink(good.c_str());
}

TEST(Security, KeyFileReadableByOthersIsRefusedWithTheFix) {
    std::string open_key = key_file("open", "0123456789abcdef-the-right-key", 0644);
    auto o = run({zcserver_bin(), "--port", std::to_string(free_port()), "--auth-key-file", open_key}, 10s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("chmod 600"), std::string::npos) << o.err;
    std::string short_key = key_file("short", "tooshort");
    auto s = run({zcperf_bin(), "-n", "1M", "--auth-key-file", short_key}, 10s);
    EXPECT_EQ(s.exit_code, 2);
    EXPECT_NE(s.err.find("shorter than 16 bytes"), std::string::npos) << s.err;
    unlink(open_key.c_str());
    unlink(short_key.c_str());
}

TEST(Security, PerSessionLimitsAreEnforcedWithTheirNames) {
    LocalServer server({"--max-streams", "4", "--max-buffer-memory", "64M", "--max-duration", "2"});
    struct Case {
        std::vector<std::string> args;
        std::string expect;
    } cases[] = {
        {{"-P", "5", "-n", "1M"}, "--max-streams"},
        {{"-m", "32M", "-P", "3", "-n", "1M"}, "--max-buffer-memory"},
        {{"-l", "5"}, "--max-duration"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> argv = {zcperf_bin(), "-H", server.address()};
        argv.insert(argv.end(), c.args.begin(), c.args.end());
        auto o = run(argv, 20s);
        EXPECT_EQ(o.exit_code, 1) << c.expect;
        EXPECT_NE(o.err.find(c.expect), std::string::npos) << o.err;
    }
    auto ok = run({zcperf_bin(), "-H", server.address(), "-P", "4", "-n", "4M", "-m", "1M"}, 20s);
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(Security, SessionLimitRefusesTheExtraClientClearly) {
    LocalServer server({"--max-sessions", "1"});
    zc::UniqueFd first = zc::connect_tcp({"127.0.0.1", server.port()}, 2s);  // said hello: holds the only session
    zc::write_all(first.get(), zc::encode_message(zc::Hello{}), 2s);
    ASSERT_TRUE(
        std::holds_alternative<zc::Welcome>(zc::decode_body(zc::read_frame(first.get(), zc::kMaxReplyBody, 5s))));
    auto o = run({zcperf_bin(), "-H", server.address(), "-n", "1M"}, 20s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("already serves 1 sessions (its --max-sessions)"), std::string::npos) << o.err;
}

// Admission: connections that never said hello hold no session slot, and one that did not finish
// its handshake in time is closed with the reason.
TEST(Security, SilentConnectionsDoNotTakeSessionSlots) {
    LocalServer server({"--max-sessions", "1", "--handshake-timeout", "2"});
    std::vector<zc::UniqueFd> silent;
    for (int i = 0; i < 5; ++i) silent.push_back(zc::connect_tcp({"127.0.0.1", server.port()}, 2s));
    auto o = run({zcperf_bin(), "-H", server.address(), "-n", "1M", "-o", "json"}, 20s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(report_json(o)["results"][0]["bytes"].get<uint64_t>(), 1ull << 20);
    auto m = zc::decode_body(zc::read_frame(silent[0].get(), zc::kMaxReplyBody, 5s));
    ASSERT_TRUE(std::holds_alternative<zc::ErrorMsg>(m));
    EXPECT_NE(std::get<zc::ErrorMsg>(m).reason.find("--handshake-timeout"), std::string::npos);
}

// A client turned away while the handshake slots are full is told so (an older zcperf prints it), and
// this zcperf tries again until a slot frees: here when the silent connection's deadline passes.
TEST(Security, BusyServerTellsTheClientAndZcperfTriesAgain) {
    LocalServer server({"--max-startups", "1", "--handshake-timeout", "2"});
    zc::UniqueFd silent = zc::connect_tcp({"127.0.0.1", server.port()}, 2s);
    std::this_thread::sleep_for(200ms);
    zc::UniqueFd old_client = zc::connect_tcp({"127.0.0.1", server.port()}, 2s);
    zc::write_all(old_client.get(), zc::encode_message(zc::Hello{}), 2s);
    auto m = zc::decode_body(zc::read_frame(old_client.get(), zc::kMaxReplyBody, 5s));
    ASSERT_TRUE(std::holds_alternative<zc::ErrorMsg>(m));
    EXPECT_NE(std::get<zc::ErrorMsg>(m).reason.find("--max-startups 1"), std::string::npos)
        << std::get<zc::ErrorMsg>(m).reason;
    EXPECT_NE(std::get<zc::ErrorMsg>(m).reason.find(zc::kServerBusy), std::string::npos);
    auto o = run({zcperf_bin(), "-H", server.address(), "-n", "1M", "-o", "json"}, 20s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.err.find("turned us away"), std::string::npos) << o.err;
    EXPECT_GT(o.seconds, 1.0) << "zcperf got in before the silent connection's deadline";
    EXPECT_EQ(report_json(o)["results"][0]["bytes"].get<uint64_t>(), 1ull << 20);
}
