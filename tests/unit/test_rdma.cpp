// The RDMA pieces with no device: the wire agreements (pattern, poisoning, window sizes), the RDMA
// options (CLI, limits, JSON both ways) and the result's rdma block.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <vector>

#include "../transport_built.hpp"
#include "parse_cli.hpp"
#include "cli.hpp"
#include "protocol/json_fields.hpp"
#include "rdma/rdma_info.hpp"
#include "rdma/rdma_options.hpp"
#include "protocol/run_spec.hpp"
#include "rdma/wire.hpp"
#include "paths/stream_path.hpp"
#include "tcp/tcp_ops.hpp"
#include "kind/spec_rules.hpp"
#include "../half_spec.hpp"

using namespace zc;
using zc::test::parse;

namespace {
// What spec_problem says of a half of this test over this transport with these RDMA options.
std::string td_problem(Workload test, Transport t, const RdmaOptions& rdma) {
    HalfSpec h = zc::test::half_spec(t, 2, {}, RxMode::copy, test);
    h.kind_params.set(kRdmaParams) = rdma;
    return spec_problem(h, Role::send);
}
}  // namespace
namespace w = zc::rdma_wire;

TEST(RdmaWire, PatternCheckedThenPoisonedSoAMissingMessageIsCaught) {
    for (uint64_t len : {1ull, 7ull, 8ull, 9ull, 100ull, 4096ull, 65536ull + 3}) {
        std::vector<std::byte> buf(len);
        w::fill_pattern(buf.data(), len);
        EXPECT_TRUE(w::check_and_poison(buf.data(), len)) << len;
        // Checked once: the samples now hold the complement, so the same bytes do not pass again
        // (a slot the sender never rewrote is a message that never landed).
        EXPECT_FALSE(w::check_and_poison(buf.data(), len)) << len;
        w::fill_pattern(buf.data(), len);
        EXPECT_TRUE(w::check_and_poison(buf.data(), len)) << len;
    }
    std::vector<std::byte> buf(4096);
    w::fill_pattern(buf.data(), buf.size());
    buf[2048] = static_cast<std::byte>(~static_cast<uint8_t>(buf[2048]));  // the middle sample
    EXPECT_FALSE(w::check_and_poison(buf.data(), buf.size()));
    EXPECT_TRUE(w::check_and_poison(buf.data(), 0));
}

TEST(RdmaWire, StreamChunksFollowThePatternAcrossMessageBoundaries) {
    const uint64_t msg = 1000;
    std::vector<std::byte> stream(3500);
    for (uint64_t k = 0; k < stream.size(); ++k) stream[k] = static_cast<std::byte>(w::pattern_byte(k % msg));
    EXPECT_TRUE(w::check_stream_chunk(stream.data() + 900, 300, 900, msg));   // spans a boundary
    EXPECT_FALSE(w::check_stream_chunk(stream.data() + 900, 300, 901, msg));  // at the wrong offset
}

TEST(RdmaWire, WindowIsTxDepthBoundedBy64MiBPerStreamAndAtLeastTwo) {
    EXPECT_EQ(w::slots_per_qp(128, 1, 65536), 128u);
    EXPECT_EQ(w::slots_per_qp(128, 1, 1 << 20), 64u);    // 64 MiB / 1 MiB
    EXPECT_EQ(w::slots_per_qp(128, 4, 1 << 20), 16u);    // split over 4 QPs
    EXPECT_EQ(w::slots_per_qp(128, 1, 1ull << 30), 2u);  // never fewer than 2
    EXPECT_EQ(w::announce_every(128), 32u);
    EXPECT_EQ(w::announce_every(3), 1u);
    EXPECT_LE(sizeof(w::ConnectRequest), 56u);
}

TEST(RdmaOptions, CliParsesAndChecks) {
    REQUIRE_RDMA_BUILT();
    ClientOptions o;
    ASSERT_EQ(parse({"-T", "rdma-write", "--cq-mode", "event", "--tx-depth", "256", "--postlist", "16", "--inline",
                     "64", "--qps", "4", "--rdma-dev", "mlx5_0,mlx5_1"},
                    o),
              -1);
    EXPECT_EQ(rdma_params(o.params).cq_mode, CqMode::event);
    EXPECT_EQ(rdma_params(o.params).tx_depth, 256u);
    EXPECT_EQ(rdma_params(o.params).postlist, 16u);
    EXPECT_EQ(rdma_params(o.params).inline_size, 64u);
    EXPECT_EQ(rdma_params(o.params).qps, 4u);
    EXPECT_EQ(rdma_device_wanted(o.local), "mlx5_0");
    EXPECT_EQ(rdma_device_wanted(o.remote), "mlx5_1");
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 1u);
    EXPECT_EQ(rdma_params(specs[0]).qps, 4u);
    ClientOptions bad;
    EXPECT_EQ(parse({"-T", "rdma-write", "--cq-mode", "spin"}, bad), 2);
    EXPECT_EQ(parse({"-T", "rdma-write", "--tx-depth", "1"}, bad), 2);
    EXPECT_EQ(parse({"-T", "rdma-write", "--tx-depth", "8", "--postlist", "16"}, bad), 2);
    EXPECT_EQ(parse({"-T", "rdma-write", "--qps", "0"}, bad), 2);
    EXPECT_EQ(parse({"-T", "rdma-write", "--rdma-dev", "a,b,c"}, bad), 2);
    EXPECT_EQ(parse({"-T", "rdma-write", "--tx-depth", "8", "--postlist", "8"}, bad), -1);
}

TEST(RdmaOptions, AutoCqModeSleepsOnThePassiveSideAndOverSoftwareDevices) {
    REQUIRE_RDMA_BUILT();
    ClientOptions o;
    ASSERT_EQ(parse({"-T", "rdma-write"}, o), -1);
    EXPECT_EQ(rdma_params(o.params).cq_mode, CqMode::auto_);
    EXPECT_EQ(effective_cq_mode(CqMode::auto_, true), CqMode::event);
    EXPECT_EQ(effective_cq_mode(CqMode::auto_, false), CqMode::poll);
    // A stream over a software device (rxe, siw) sleeps on both sides: polling takes the kernel's CPU.
    EXPECT_EQ(effective_cq_mode(CqMode::auto_, false, true), CqMode::event);
    EXPECT_EQ(effective_cq_mode(CqMode::poll, false, true), CqMode::poll);
    EXPECT_TRUE(software_provider("rxe"));
    EXPECT_TRUE(software_provider("siw"));
    EXPECT_FALSE(software_provider("mlx5"));
    for (bool passive : {true, false}) {
        EXPECT_EQ(effective_cq_mode(CqMode::poll, passive), CqMode::poll);
        EXPECT_EQ(effective_cq_mode(CqMode::event, passive), CqMode::event);
    }
    EXPECT_EQ(cq_mode_from_name("auto"), CqMode::auto_);
    EXPECT_STREQ(cq_mode_name(CqMode::auto_), "auto");
    TestSpec t;
    t.transport = transport_named("rdma-write");
    EXPECT_EQ(rdma_params(half_spec_from_json(to_json(server_half(t)))).cq_mode, CqMode::auto_);
}

TEST(RdmaOptions, TravelToTheServerAndAreRangeChecked) {
    REQUIRE_RDMA_BUILT();
    TestSpec t;
    t.transport = transport_named("rdma-write");
    t.kind_params.set(kRdmaParams) = RdmaOptions{CqMode::event, 64, 8, 128, 2};
    t.remote.kind_params.set(kRdmaSideParams).device = "rxe0";
    HalfSpec back = half_spec_from_json(to_json(server_half(t)));
    EXPECT_EQ(rdma_params(back).cq_mode, CqMode::event);
    EXPECT_EQ(rdma_params(back).tx_depth, 64u);
    EXPECT_EQ(rdma_params(back).postlist, 8u);
    EXPECT_EQ(rdma_params(back).inline_size, 128u);
    EXPECT_EQ(rdma_params(back).qps, 2u);
    EXPECT_EQ(rdma_device_wanted(back.side), "rxe0");
    auto j = to_json(server_half(t));
    j["qps"] = 100000;
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);
    j = to_json(server_half(t));
    j["postlist"] = 1000;  // more than tx_depth
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);
    // An older client sends no RDMA fields: defaults.
    TestSpec tcp;
    EXPECT_EQ(rdma_params(half_spec_from_json(to_json(server_half(tcp)))).tx_depth, 128u);
}

TEST(RdmaInfo, JsonRoundTripAndOneLine) {
    RdmaInfo r;
    r.device = "rxe0";
    r.port = 1;
    r.gid_index = 1;
    r.mtu = 4096;
    r.link_layer = "Ethernet (RoCE)";
    r.cq_mode = "poll";
    r.qps = 4;
    r.registration_ms = 0.5;
    r.registered_bytes = 1 << 20;
    RdmaInfo b = rdma_info_from_json(to_json(r));
    EXPECT_EQ(b.device, "rxe0");
    EXPECT_EQ(b.gid_index, 1);
    EXPECT_EQ(b.qps, 4u);
    EXPECT_EQ(b.registered_bytes, 1u << 20);
    std::string line = describe(b);
    EXPECT_NE(line.find("rxe0 port 1"), std::string::npos) << line;
    EXPECT_NE(line.find("GID index 1"), std::string::npos) << line;
    EXPECT_NE(line.find("CQ poll"), std::string::npos) << line;
    RdmaInfo sum;
    sum.add(r);
    sum.add(r);
    EXPECT_EQ(sum.qps, 8u);
    EXPECT_DOUBLE_EQ(sum.registration_ms, 1.0);
}

TEST(RdmaOptions, QpsPerContextTravelsAndIsChecked) {
    REQUIRE_RDMA_BUILT();
    TestSpec t;
    t.transport = transport_named("rdma-send");
    t.kind_params.set(kRdmaParams).qps_per_context = 3;
    EXPECT_EQ(rdma_params(half_spec_from_json(to_json(server_half(t)))).qps_per_context, 3u);
    auto j = to_json(server_half(t));
    j["qps_per_context"] = 100000;
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);
    j.erase("qps_per_context");  // an older client: rdma_cm's shared context
    EXPECT_EQ(rdma_params(half_spec_from_json(j)).qps_per_context, 0u);
    RdmaOptions o;
    o.qps_per_context = kMaxQpsPerContext + 1;
    EXPECT_THROW(check_rdma_options(o), std::invalid_argument);
}

TEST(RdmaInfo, PostsInlineAndContextsCrossTheWire) {
    RdmaInfo r;
    r.device = "rxe0";
    r.cq_mode = "poll";
    r.contexts_opened = 1;
    r.max_inline = 64;
    r.inline_sends = 80;
    r.data_sends = 80;
    r.post_calls = 10;
    r.rr_wait = "receive completion";
    RdmaInfo b = rdma_info_from_json(to_json(r));
    EXPECT_EQ(b.contexts_opened, 1u);
    EXPECT_EQ(b.max_inline, 64u);
    EXPECT_EQ(b.inline_sends, 80u);
    EXPECT_EQ(b.post_calls, 10u);
    EXPECT_EQ(b.rr_wait, "receive completion");
    std::string line = describe(b);
    EXPECT_NE(line.find("80 data WRs in 10 ibv_post_send calls, 80 inline (max_inline 64)"), std::string::npos) << line;
    EXPECT_NE(line.find("1 device context(s) opened"), std::string::npos) << line;
    RdmaInfo sum;
    sum.add(r);
    sum.add(r);
    EXPECT_EQ(sum.contexts_opened, 2u);
    EXPECT_EQ(sum.data_sends, 160u);
    EXPECT_EQ(sum.max_inline, 64u);
}

TEST(RdmaOptions, ThreadDomainsTravelAndAreCheckedAgainstTheTransport) {
    REQUIRE_RDMA_BUILT();
    TestSpec t;
    t.transport = transport_named("rdma-write");
    t.kind_params.set(kRdmaParams).thread_domains = true;
    EXPECT_TRUE(rdma_params(half_spec_from_json(to_json(server_half(t)))).thread_domains);
    t.kind_params.set(kRdmaParams).thread_domains = false;
    EXPECT_FALSE(rdma_params(half_spec_from_json(to_json(server_half(t)))).thread_domains);
    auto j = to_json(server_half(t));
    j["thread_domains"] = 1;  // not a boolean
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);
    j.erase("thread_domains");  // an older client: none
    EXPECT_FALSE(rdma_params(half_spec_from_json(j)).thread_domains);

    RdmaOptions td;
    td.thread_domains = true;
    td.qps_per_context = 2;  // combinable
    for (Transport v : {transport_named("rdma-write"), transport_named("rdma-send")}) {
        EXPECT_EQ(td_problem(Workload::stream, v, td), "");
        EXPECT_EQ(td_problem(Workload::msgrate, v, td), "");
    }
    EXPECT_EQ(td_problem(Workload::stream, transport_named("rdma-read"), td), "");
    // rsockets take the RDMA options but have no QPs of ours (their msgrate is refused before: not offered);
    // a TCP half never holds them (side_half keeps only its kind's), and the command line refuses them below.
    for (Transport other : {transport_named("rsocket"), transport_named("rsocket-iomap")}) {
        std::string why = td_problem(Workload::stream, other, td);
        EXPECT_NE(why.find("--thread-domains is for the verbs transports"), std::string::npos) << why;
    }
    ClientOptions o;
    ASSERT_EQ(parse({"-t", "msgrate", "-T", "rdma-write", "-P", "4", "--qps-per-context", "4", "--thread-domains"}, o),
              -1);
    EXPECT_TRUE(rdma_params(o.params).thread_domains);
    EXPECT_EQ(rdma_params(o.params).qps_per_context, 4u);
    ClientOptions off;
    ASSERT_EQ(parse({"-T", "rdma-write"}, off), -1);
    EXPECT_FALSE(rdma_params(off.params).thread_domains);
    EXPECT_EQ(parse({"-T", "tcp", "--thread-domains"}), 2);
    EXPECT_EQ(parse({"-T", "rdma-write,rsocket", "--thread-domains"}), 2);
}

namespace {
// Sets (or unsets) one environment variable for a scope and puts the old value back.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        value ? setenv(name, value, 1) : unsetenv(name);
    }
    ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

private:
    const char* name_;
    std::optional<std::string> old_;
};
}  // namespace

TEST(RdmaInfo, DoorbellEnvIsReadFromTheOneList) {
    std::vector<ScopedEnv> env;
    env.reserve(std::size(kDoorbellEnv));
    for (const auto& v : kDoorbellEnv) env.emplace_back(v.name, nullptr);
    EXPECT_TRUE(doorbell_env_now().empty());
    ScopedEnv bf("MLX5_SHUT_UP_BF", "1"), st("MLX5_SINGLE_THREADED", "0"), other("MLX5_CQE_SIZE", "128");
    auto now = doorbell_env_now();
    EXPECT_EQ(now, (std::map<std::string, std::string>{{"MLX5_SHUT_UP_BF", "1"}, {"MLX5_SINGLE_THREADED", "0"}}));
}

TEST(RdmaInfo, ProviderDoorbellEnvAndThreadDomainsCrossTheWireBounded) {
    RdmaInfo r;
    r.device = "mlx5_0";
    r.provider = "mlx5";
    r.cq_mode = "poll";
    r.thread_domains = 1;
    r.doorbell_env = {{"MLX5_SHUT_UP_BF", "1"}};
    auto j = to_json(r);
    // Every variable of the list is in the JSON, null where it was not set on that side.
    for (const auto& v : kDoorbellEnv) ASSERT_TRUE(j["doorbell_env"].contains(v.name)) << v.name;
    EXPECT_TRUE(j["doorbell_env"]["MLX5_SINGLE_THREADED"].is_null());
    EXPECT_EQ(j["doorbell_env"]["MLX5_SHUT_UP_BF"], "1");
    RdmaInfo b = rdma_info_from_json(j);
    EXPECT_EQ(b.provider, "mlx5");
    EXPECT_EQ(b.thread_domains, 1u);
    EXPECT_EQ(b.doorbell_env, r.doorbell_env);
    std::string line = describe(b);
    EXPECT_NE(line.find("mlx5_0 port 0 (provider mlx5)"), std::string::npos) << line;
    EXPECT_NE(line.find("1 thread domain(s)"), std::string::npos) << line;
    EXPECT_NE(line.find("doorbell env: MLX5_SHUT_UP_BF=1"), std::string::npos) << line;
    EXPECT_EQ(line.find("MLX5_SINGLE_THREADED"), std::string::npos) << line;  // shown only where set
    r.thread_domains = 0;
    r.doorbell_env.clear();
    line = describe(rdma_info_from_json(to_json(r)));
    EXPECT_EQ(line.find("thread domain"), std::string::npos) << line;
    EXPECT_EQ(line.find("doorbell env"), std::string::npos) << line;
    // An older peer sends none of the three: defaults.
    auto old = to_json(r);
    for (const char* f : {"provider", "doorbell_env", "thread_domains"}) old.erase(f);
    RdmaInfo o = rdma_info_from_json(old);
    EXPECT_TRUE(o.provider.empty() && o.doorbell_env.empty() && o.thread_domains == 0);
    // Bounded: too many variables, over-long names or values, wrong types.
    auto bad = [&](auto mutate) {
        auto x = to_json(r);
        mutate(x);
        EXPECT_THROW(rdma_info_from_json(x), ProtocolError) << x.dump().substr(0, 200);
    };
    bad([](nlohmann::json& x) {
        for (int i = 0; i < 40; ++i) x["doorbell_env"]["V" + std::to_string(i)] = "1";
    });
    bad([](nlohmann::json& x) { x["doorbell_env"]["MLX5_SHUT_UP_BF"] = std::string(300, '1'); });
    bad([](nlohmann::json& x) { x["doorbell_env"][std::string(300, 'N')] = "1"; });
    bad([](nlohmann::json& x) { x["doorbell_env"]["MLX5_SHUT_UP_BF"] = 1; });
    bad([](nlohmann::json& x) { x["doorbell_env"] = "MLX5_SHUT_UP_BF=1"; });
    bad([](nlohmann::json& x) { x["provider"] = std::string(300, 'p'); });
    bad([](nlohmann::json& x) { x["thread_domains"] = -1; });
    // A side's streams: the provider and variables once, the thread domains summed.
    RdmaInfo s1 = b, sum;
    sum.add(s1);
    sum.add(s1);
    EXPECT_EQ(sum.provider, "mlx5");
    EXPECT_EQ(sum.thread_domains, 2u);
    EXPECT_EQ(sum.doorbell_env.size(), 1u);
}

// A TCP data connection reports no RDMA device, even on a host where one sits on the route's netdev
// (the two-guest lab's rxe0 on eth0 printed "rdma: rxe0 ..." under plain tcp results).
TEST(RdmaInfo, PlainTcpConnectionHasNone) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    zc::DataConnection conn{zc::UniqueFd(sv[0])};
    zc::UniqueFd other(sv[1]);
    zc::StreamCounters counters;
    std::any no_counts, no_reading;
    const zc::KindStream stream{&conn, &counters, &no_counts, &no_reading};
    zc::SideResult r;
    zc::read_kind_block(zc::test::half_spec(zc::transport_named("tcp"), 1 << 16), zc::Role::send, {&stream, 1}, r);
    EXPECT_FALSE(r.kinds.contains(zc::rdma_block_type().key));  // the RDMA kinds write it, no other
}
