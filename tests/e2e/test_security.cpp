// The daemon's guards: shared-secret authentication and the per-session limits, each refusal a
// clear reason, and the daemon serving on.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "transport/tcp_socket.hpp"

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
    EXPECT_EQ(nlohmann::json::parse(right.out)["results"][0]["bytes"].get<uint64_t>(), 4ull << 20);
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
    zc::ServerSpec spec;
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
    zc::UniqueFd first = zc::connect_tcp({"127.0.0.1", server.port()}, 2s);  // holds the only session
    std::this_thread::sleep_for(200ms);
    auto o = run({zcperf_bin(), "-H", server.address(), "-n", "1M"}, 20s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("--max-sessions"), std::string::npos) << o.err;
}
