// A kind's own parameters (core/kind_params.hpp): its option rows write them, only a transport of the kind
// takes them (the command line refuses them otherwise, a test's half keeps only its kind's), and its field
// table carries them to the server for that kind alone.
#include <gtest/gtest.h>

#include "../transport_built.hpp"
#include "cli.hpp"
#include "kind/spec_rules.hpp"
#include "protocol/udp_params.hpp"
#include "protocol/kind_params_wire.hpp"
#include "protocol/frame.hpp"
#include "protocol/rdma_options.hpp"
#include "protocol/run_spec.hpp"

using namespace zc;

namespace {

struct Parsed {
    int rc;
    std::string err;
};

Parsed parse_said(std::vector<std::string> args, ClientOptions& o) {
    args.insert(args.begin(), "zcperf");
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    int rc = parse_client_options(static_cast<int>(args.size()), argv.data(), o);
    ::testing::internal::GetCapturedStdout();
    return {rc, ::testing::internal::GetCapturedStderr()};
}

const TestSpec& of(const std::vector<TestSpec>& specs, Transport t) {
    for (const auto& s : specs)
        if (s.transport == t) return s;
    throw std::logic_error("no test of that transport");
}

}  // namespace

TEST(KindParams, AStructByItsKeyWithItsDefaultsWhereUnset) {
    struct Knobs {
        int depth = 7;
    };
    constexpr KindParamsKey<Knobs> kKnobs{"knobs"};
    KindParams p;
    EXPECT_EQ(p.get(kKnobs).depth, 7);  // unset: the defaults
    EXPECT_FALSE(p.contains("knobs"));
    p.set(kKnobs).depth = 9;
    EXPECT_EQ(p.get(kKnobs).depth, 9);
    KindParams copy = p;  // a spec's copy holds its own
    copy.set(kKnobs).depth = 1;
    EXPECT_EQ(p.get(kKnobs).depth, 9);
    p.erase("knobs");
    EXPECT_EQ(p.get(kKnobs).depth, 7);
}

// Each registered struct names which rows take it; the RDMA kinds' and UDP GSO's are registered by their modules.
TEST(KindParams, EveryWireStructIsRegisteredWithItsTakers) {
    std::vector<std::string> keys;
    for (const auto* w : kind_params_wires()) {
        keys.emplace_back(w->key);
        ASSERT_TRUE(w->takes && w->encode && w->decode) << w->key;
    }
    for (const char* k : {kRdmaParams.name, kRdmaSideParams.name, kUdpParams.name})
        EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
}

TEST(KindParams, AnOptionNoTransportGivenTakesIsRefusedByName) {
    REQUIRE_RDMA_BUILT();
    ClientOptions tcp;
    Parsed r = parse_said({"-T", "tcp", "--tx-depth", "64"}, tcp);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--tx-depth is for -T rsocket, rsocket-iomap, rdma-write, rdma-send, rdma-read: none of the "
                         "transports given takes it"),
              std::string::npos)
        << r.err;
    ClientOptions udp;
    r = parse_said({"-T", "udp", "--gso-size", "1400"}, udp);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--gso-size is for -T udp-gso, udp-msgzc"), std::string::npos) << r.err;
    ClientOptions dev;
    r = parse_said({"-T", "udp", "--rdma-dev", "rxe0"}, dev);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--rdma-dev is for -T rsocket"), std::string::npos) << r.err;
    // A kind's client-side text (tls) is refused the same way.
    ClientOptions tls;
    r = parse_said({"-T", "tcp", "--tls-cipher", "aes-256-gcm"}, tls);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--tls-cipher is for -T tls, ktls, ktls-sendfile"), std::string::npos) << r.err;
    // --under-load's transport counts: its streams take them.
    ClientOptions load;
    EXPECT_EQ(parse_said({"-T", "tcp", "-t", "rr", "--under-load", "2:rdma-write", "--rdma-dev", "rxe0"}, load).rc, -1);
}

// -T tcp,rdma-write,udp-gso: each test's halves keep only the parameters its own kind takes, and send those alone.
TEST(KindParams, EachTestsHalvesKeepAndSendOnlyTheirKinds) {
    REQUIRE_RDMA_BUILT();
    ClientOptions o;
    ASSERT_EQ(
        parse_said(
            {"-T", "tcp,rdma-write,udp-gso", "--tx-depth", "64", "--rdma-dev", "rxe0,rxe1", "--gso-size", "1400"}, o)
            .rc,
        -1);
    auto specs = expand_tests(o);
    const TestSpec& tcp = of(specs, transport_named("tcp"));
    const TestSpec& rdma = of(specs, transport_named("rdma-write"));
    const TestSpec& gso = of(specs, transport_named("udp-gso"));

    HalfSpec tcp_server = server_half(tcp);
    EXPECT_FALSE(tcp_server.kind_params.contains(kRdmaParams.name));
    EXPECT_FALSE(tcp_server.kind_params.contains(kUdpParams.name));
    EXPECT_FALSE(tcp_server.side.kind_params.contains(kRdmaSideParams.name));
    nlohmann::json tcp_wire = to_json(tcp_server);
    for (const char* k : {"tx_depth", "cq_mode", "rdma_dev", "gso_size"}) EXPECT_FALSE(tcp_wire.contains(k)) << k;

    nlohmann::json rdma_wire = to_json(server_half(rdma));
    EXPECT_EQ(rdma_wire["tx_depth"], 64);
    EXPECT_EQ(rdma_wire["rdma_dev"], "rxe1");  // the server's side
    EXPECT_FALSE(rdma_wire.contains("gso_size"));
    HalfSpec back = half_spec_from_json(rdma_wire);
    EXPECT_EQ(rdma_params(back).tx_depth, 64u);
    EXPECT_EQ(rdma_device_wanted(back.side), "rxe1");
    EXPECT_EQ(rdma_device_wanted(side_half(rdma, rdma.local).side), "rxe0");  // the client's own

    HalfSpec gso_client = side_half(gso, gso.local);
    EXPECT_EQ(gso_size_of(gso_client), 1400u);
    EXPECT_FALSE(gso_client.kind_params.contains(kRdmaParams.name));
    nlohmann::json gso_wire = to_json(server_half(gso));
    EXPECT_EQ(gso_wire["gso_size"], 1400);
    EXPECT_FALSE(gso_wire.contains("tx_depth"));
    EXPECT_EQ(gso_size_of(half_spec_from_json(gso_wire)), 1400u);
}

// The server reads a kind's fields only for a transport of that kind, range-checked; an older client's silence
// keeps the defaults.
TEST(KindParams, TheServerReadsOnlyItsTransportsFieldsAndChecksThem) {
    TestSpec tcp;
    nlohmann::json j = to_json(server_half(tcp));
    j["tx_depth"] = 64;  // not a tcp field: not read
    j["gso_size"] = 1400;
    HalfSpec h = half_spec_from_json(j);
    EXPECT_FALSE(h.kind_params.contains(kRdmaParams.name));
    EXPECT_EQ(gso_size_of(h), 0u);

    TestSpec gso;
    gso.transport = transport_named("udp-gso");
    nlohmann::json g = to_json(server_half(gso));
    EXPECT_EQ(gso_size_of(half_spec_from_json(g)), 0u);  // not given: the path MTU's
    g["gso_size"] = 70000;
    EXPECT_THROW(half_spec_from_json(g), ProtocolError);
    g.erase("gso_size");  // an older client
    EXPECT_EQ(gso_size_of(half_spec_from_json(g)), 0u);
}
