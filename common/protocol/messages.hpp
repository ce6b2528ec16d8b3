#pragma once
// The control protocol's messages. This file and frame.hpp are the only code that knows the wire format.
//
//   client                          server
//   hello{version, nonce}   ->
//                           <-      welcome{version, capabilities}   (or error{reason})
//   With --auth-key-file on the server, the first welcome carries only a challenge (and the
//   server's proof over the client's nonce); the client answers auth{proof} and gets the full
//   welcome, or an error.
//   setup{server's half}    ->
//                           <-      ready{data_port, token}          (or error{reason})
//   [client opens the data connections, each sending the token]
//   start                   ->
//                           <-      started                          (server's interval has begun)
//   [data flows; a client may send stop to end the test early]
//                           <-      interval{SideInterval}           (--interval: one per interval, if the
//                                                                     welcome listed the "intervals" feature)
//                           <-      result{server's SideResult}      (or error{reason})
//   setup ... (next test) or close
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/interval.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"
#include "system/host_info.hpp"

namespace zc {

// Why a test's set-up ended when its client sent Stop before Start. The server reports it as its
// error; a client that sent the Stop itself (its own set-up failed) knows it is no news.
inline constexpr const char* kStoppedBeforeStart = "the test was stopped before it started";
// ... and when Stop came during the test (a side's runner was aborted): no news to the client that sent it.
inline constexpr const char* kStoppedMidTest = "the test was stopped before it finished";

// Ends the reason of a refusal that says nothing about the client (the server is busy with other
// connections' handshakes): zcperf tries again for a while when it sees it; older clients print it.
inline constexpr const char* kServerBusy = "try again in a moment";

// The control protocol's version: hello and welcome carry it, and the two ends refuse each other, naming both
// releases, unless they match. 2 (zcperf 1.1): -b's figures are a side's own section, no longer the udp block's.
inline constexpr int kProtocolVersion = 2;

// What a server can do beyond version 1's messages, listed in its welcome (an older server lists
// nothing): "intervals" = it sends interval messages during a test with interval_s > 0.
inline constexpr const char* kFeatureIntervals = "intervals";
// "explain" = it samples its CPUs over the measured interval when the setup's explain_hz > 0 (--explain).
inline constexpr const char* kFeatureExplain = "explain";
// "flows" = it serves a setup's flows > 1 (--flows): an older server would ignore the field and wait
// for one connection per stream, so zcperf refuses before the setup instead.
inline constexpr const char* kFeatureFlows = "flows";
// "under-load" = it runs a client's --under-load stream test beside that client's rr, on a second control
// connection: an older server is not known to, and an --exclusive one runs one test at a time.
inline constexpr const char* kFeatureUnderLoad = "under-load";
// What this release's zcserver lists.
inline std::vector<std::string> server_features(bool exclusive = false) {
    std::vector<std::string> out{kFeatureIntervals, kFeatureExplain, kFeatureFlows};
    if (!exclusive) out.emplace_back(kFeatureUnderLoad);
    return out;
}

struct Hello {
    int version = kProtocolVersion;
    std::string software;
    std::string boot_id;  // lets the server tell a same-host client apart from other load
    int pid = 0;
    std::string nonce;  // the client's challenge to the server (authentication)
};
struct Welcome {
    int version = kProtocolVersion;
    std::string software;
    std::string auth_challenge;  // non-empty: prove the shared key before anything else
    std::string auth_proof;      // the server's proof over the client's nonce ("" without a key)
    bool has_host = false;       // host facts are sent only to an authenticated client
    HostInfo host;
    std::vector<std::string> features;  // with the host facts; see kFeatureIntervals

    bool has_feature(const std::string& f) const;
};
struct Auth {
    std::string proof;
};
struct Setup {
    HalfSpec spec;
};
struct Ready {
    uint16_t data_port = 0;
    uint64_t token = 0;
    double waited_s = 0;  // an --exclusive server: how long this test waited for another client's to end
};
struct Start {};
struct Started {};
struct Stop {};
struct ResultMsg {
    SideResult side;
};
struct ErrorMsg {
    std::string reason;
};
struct IntervalMsg {
    SideInterval sample;
};

using Message =
    std::variant<Hello, Welcome, Setup, Ready, Start, Started, Stop, ResultMsg, ErrorMsg, Auth, IntervalMsg>;

const char* message_name(const Message& m);
std::string encode_body(const Message& m);
std::string encode_message(const Message& m);  // framed, ready to write

// Throws ProtocolError for anything malformed: not JSON, not an object, unknown type, missing or
// out-of-range fields.
Message decode_body(std::string_view body);

// At most max_bytes of s, cut on a UTF-8 character boundary.
std::string utf8_prefix(const std::string& s, size_t max_bytes);

nlohmann::json to_json(const Topology& t);
Topology topology_from_json(const nlohmann::json& j);
nlohmann::json to_json(const HostInfo& h);
HostInfo host_info_from_json(const nlohmann::json& j);

}  // namespace zc
