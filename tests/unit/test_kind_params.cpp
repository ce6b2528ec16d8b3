// A kind's own parameters (core/kind_params.hpp): its option rows write them, only a transport of the kind
// takes them (the command line refuses them otherwise, a test's half keeps only its kind's), and its field
// table carries them to the server for that kind alone.
#include <gtest/gtest.h>

#include "../transport_built.hpp"
#include "cli.hpp"
#include "kind/spec_rules.hpp"
#include "udp/udp_params.hpp"
#include "protocol/kind_params_wire.hpp"
#include "protocol/frame.hpp"
#include "rdma/rdma_options.hpp"
#include "protocol/run_spec.hpp"
#include "tcp/tcp_params.hpp"

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
    for (const char* k :
         {kRdmaParams.name, kRdmaSideParams.name, kUdpParams.name, kTcpParams.name, kTcpSideParams.name, "mptcp"})
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
    // TCP's three groups, each by the rows that take it: the byte-stream options, the socket options, --flows.
    ClientOptions mptcp;
    EXPECT_EQ(parse_said({"-T", "mptcp", "--rcvlowat", "1", "--crr-close", "fin", "-t", "crr"}, mptcp).rc, -1);
    ClientOptions cc;
    r = parse_said({"-T", "mptcp", "-C", "reno"}, cc);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--congestion is for -T tcp, tcp-sendfile, tcp-msgzc, tcp-uringzc, tls, ktls, ktls-sendfile: "
                         "none of the transports given takes it"),
              std::string::npos)
        << r.err;
    ClientOptions flows;
    r = parse_said({"-T", "udp", "--flows", "4"}, flows);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--flows is for -T tcp: none of the transports given takes it"), std::string::npos) << r.err;
    ClientOptions lowat;
    r = parse_said({"-T", "udp", "--rcvlowat", "1"}, lowat);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--rcvlowat is for -T tcp,"), std::string::npos) << r.err;
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

namespace {

// TCP's parameters kept the wire the shared spec gave them: the same names and ranges, sent with every row's test
// (an older server requires uring_fixed in each), and an older client's silence means what it meant.
TEST(KindParams, TcpsParametersKeepTheSharedSpecsWire) {
    TestSpec udp;
    udp.transport = transport_named("udp");
    nlohmann::json u = to_json(server_half(udp));
    for (const char* k : {"uring_fixed", "rcv_lowat", "flows", "congestion", "max_pacing_Bps", "tos", "crr_close"})
        EXPECT_TRUE(u.contains(k)) << k;
    EXPECT_EQ(u["uring_fixed"], false);
    EXPECT_EQ(u["rcv_lowat"], kDefaultRcvLowat);
    EXPECT_EQ(u["tos"], -1);
    EXPECT_EQ(u["crr_close"], "rst");

    TestSpec tcp;
    TcpParams& p = tcp.kind_params.set(kTcpParams);
    p.flows = 8;
    p.congestion = "reno";
    p.max_pacing_Bps = 1000;
    p.tos = 0x10;
    p.crr_close = CrrClose::fin;
    p.rcv_lowat = 1;
    tcp.remote.kind_params.set(kTcpSideParams).bind_dev = "eth9";
    nlohmann::json j = to_json(server_half(tcp));
    EXPECT_EQ(j["flows"], 8);
    EXPECT_EQ(j["congestion"], "reno");
    EXPECT_EQ(j["bind_dev"], "eth9");
    HalfSpec back = half_spec_from_json(j);
    EXPECT_EQ(tcp_params(back).flows, 8);
    EXPECT_EQ(tcp_params(back).congestion, "reno");
    EXPECT_EQ(tcp_params(back).max_pacing_Bps, 1000u);
    EXPECT_EQ(tcp_params(back).tos, 0x10);
    EXPECT_EQ(tcp_params(back).crr_close, CrrClose::fin);
    EXPECT_EQ(rcv_lowat_of(back), 1u);
    EXPECT_EQ(tcp_side_params(back.side).bind_dev, "eth9");

    // An older client: no TCP field but the required uring_fixed.
    for (const char* k : {"rcv_lowat", "flows", "congestion", "max_pacing_Bps", "tos", "crr_close", "bind_dev"})
        j.erase(k);
    HalfSpec old = half_spec_from_json(j);
    EXPECT_EQ(tcp_params(old).rcv_lowat, 1u);  // the kernel's default, as before --rcvlowat
    EXPECT_EQ(tcp_params(old).flows, 1);
    EXPECT_EQ(tcp_params(old).tos, -1);
    EXPECT_EQ(tcp_params(old).crr_close, CrrClose::rst);
    EXPECT_EQ(tcp_params(old).congestion, "");
    EXPECT_EQ(tcp_side_params(old.side).bind_dev, "");
    j.erase("uring_fixed");
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);  // required, as it was

    // The ranges, and -P x --flows, as the shared spec checked them.
    nlohmann::json bad = to_json(server_half(tcp));
    bad["flows"] = kMaxFlows + 1;
    EXPECT_THROW(half_spec_from_json(bad), ProtocolError);
    bad = to_json(server_half(tcp));
    bad["streams"] = 2;
    bad["flows"] = kMaxFlows;
    try {
        half_spec_from_json(bad);
        ADD_FAILURE() << "2 x 65536 connections accepted";
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find("'streams' x 'flows'"), std::string::npos) << e.what();
    }
    bad = to_json(server_half(tcp));
    bad["rcv_lowat"] = 0;
    EXPECT_THROW(half_spec_from_json(bad), ProtocolError);
    bad["rcv_lowat"] = 1;
    bad["tos"] = 256;
    EXPECT_THROW(half_spec_from_json(bad), ProtocolError);
}

}  // namespace
