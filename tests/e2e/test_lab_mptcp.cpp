// MPTCP between the lab's two kernels (label lab; scripts/lab.sh runs it in guest A): one
// connection with a subflow on each link, eth0 (198.18.1.0/24) and eth1 (198.18.2.0/24, the offloading
// link). The test sets both guests' path managers (limits, and B's eth1 address as a `signal` endpoint,
// which B announces with ADD_ADDR and A joins) and puts back what they had, on failure too.
// The guests run Debian 12's 6.1, whose MPTCP_INFO has no byte counters (6.5 added them): each side's
// subflows are added up against zcperf's own count of the connection's bytes, and against the other side's.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lab.hpp"
#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const Lab kLab;

// A shell command in A (here) or in B (through the lab's shared directory), its output.
std::string sh(bool in_b, const std::string& cmd) {
    Outcome o = in_b ? kLab.in_b(cmd) : run({"bash", "-c", cmd}, 30s);
    EXPECT_EQ(o.exit_code, 0) << (in_b ? "in B: " : "in A: ") << cmd << ": " << o.err;
    return o.out;
}

// An endpoint the kernel made itself for a subflow's local address (MPTCP_PM_ADDR_FLAG_IMPLICIT, 0x10;
// iproute2 6.1 shows it as "rawflags 10"): not a setting, and `endpoint add` refuses it back.
bool implicit_endpoint(const std::string& line) {
    if (line.find(" implicit") != std::string::npos) return true;
    size_t at = line.find("rawflags ");
    return at != std::string::npos && (std::stoul(line.substr(at + 9), nullptr, 16) & 0x10) != 0;
}

// One guest's MPTCP path manager settings, as `ip mptcp` shows them: the limits, "---", the endpoints
// (without the kernel's implicit ones).
std::string pm_state(bool in_b) {
    std::istringstream in(sh(in_b, "ip mptcp limits show && echo --- && ip mptcp endpoint show"));
    std::string state, line;
    while (std::getline(in, line))
        if (!implicit_endpoint(line)) state += line + "\n";
    return state;
}

// Both guests' MPTCP path managers set for two subflows, and put back as they were when this goes out of
// scope (the endpoints flushed, the saved ones added again, the saved limits set). Each guest keeps its
// state between tests, so a test that changed it and left would change the next one's.
class TwoSubflowPathManagers {
public:
    explicit TwoSubflowPathManagers(const std::string& b_eth1_address) {
        for (bool in_b : {false, true}) {
            saved_[in_b] = pm_state(in_b);
            saved_any_ = true;
            // Only this test's endpoint while it runs (the saved ones come back after).
            std::string set = "ip mptcp endpoint flush && ip mptcp limits set subflows 2 add_addr_accepted 2";
            if (in_b) set += " && ip mptcp endpoint add " + b_eth1_address + " dev " + kLab.offload_nic + " signal";
            sh(in_b, set);
        }
    }
    ~TwoSubflowPathManagers() {
        if (!saved_any_) return;
        for (bool in_b : {false, true})
            if (!saved_[in_b].empty()) sh(in_b, restore(saved_[in_b]));
    }
    TwoSubflowPathManagers(const TwoSubflowPathManagers&) = delete;
    TwoSubflowPathManagers& operator=(const TwoSubflowPathManagers&) = delete;

private:
    // `ip mptcp limits show` prints what `limits set` takes; each `endpoint show` line what `endpoint add` takes.
    static std::string restore(const std::string& saved) {
        std::istringstream in(saved);
        std::string limits, line, cmd = "ip mptcp endpoint flush";
        std::getline(in, limits);
        cmd += " && ip mptcp limits set " + limits;
        std::getline(in, line);  // ---
        while (std::getline(in, line))
            if (!line.empty()) cmd += " && ip mptcp endpoint add " + line;
        return cmd;
    }
    std::string saved_[2];
    bool saved_any_ = false;
};

uint64_t sum(const json& subflows, const char* field) {
    uint64_t n = 0;
    for (const auto& s : subflows) n += s[field].get<uint64_t>();
    return n;
}

constexpr uint64_t kToken = 8;  // each data connection's first bytes: the client's token to the server

// One side's connection: MPTCP, one subflow on each link from this side's address there, and its subflows'
// bytes adding up to what zcperf moved through the connection (`sent`, `received`, the token included).
// Each subflow's SYN and FIN take a sequence number tcpi_bytes_acked counts (2 per subflow); bytes the
// connection sent again on the other subflow (reinjected) count on both, which this kernel does not report:
// up to 10 % of the connection's bytes are allowed for them (they were 0.01-0.3 % on loopback and veth).
void expect_two_links(const json& side, const std::string& eth0_ip, const std::string& eth1_ip, uint64_t sent,
                      uint64_t received) {
    ASSERT_TRUE(side.contains("mptcp")) << side.dump();
    const json& conns = side["mptcp"]["connections"];
    ASSERT_EQ(conns.size(), 1u) << side["mptcp"].dump();
    const json& c = conns[0];
    ASSERT_TRUE(c["mptcp"].get<bool>()) << c.dump();
    const json& subflows = c["subflows"];
    ASSERT_EQ(subflows.size(), 2u) << c.dump();
    std::set<std::string> locals;
    for (const auto& s : subflows) {
        const std::string local = s["local"];
        locals.insert(local.substr(0, local.rfind(':')));
    }
    EXPECT_EQ(locals, (std::set<std::string>{eth0_ip, eth1_ip})) << subflows.dump();
    const uint64_t slack = 2 * subflows.size(), reinjected = (sent + received) / 10;
    const uint64_t acked = sum(subflows, "bytes_acked"), got = sum(subflows, "bytes_received");
    EXPECT_LE(acked, sent + reinjected + slack) << c.dump();
    EXPECT_GE(got, received) << c.dump();
    EXPECT_LE(got, received + reinjected + slack) << c.dump();
    if (c["has_bytes"].get<bool>()) {  // a kernel with the counters (6.5+): zcperf's own check ran too
        EXPECT_EQ(c["bytes_received"].get<uint64_t>(), received) << c.dump();
        for (const auto& w : side["warnings"]) EXPECT_EQ(w.get<std::string>().find("mptcp"), std::string::npos) << w;
    }
    std::cout << side["role"].get<std::string>() << " " << eth0_ip << ": subflows acked " << acked << " B (zcperf sent "
              << sent << " B), received " << got << " B (zcperf received " << received << " B)\n";
}

// -T mptcp and mptcp-sendfile, stream and maerts, across both links at once: each side's connection has a
// subflow on eth0 and one on eth1, both carried data, and each side's subflows add up to the connection.
void expect_subflows_on_both_links(const std::string& b1) {
    const std::string a0 = kLab.a_ip, b0 = kLab.server_ip();
    const std::string a1 = b1.substr(0, b1.rfind('.')) + ".1";  // lab.sh: 198.18.2.1 in A, .2 in B
    json j = zcperf_report({"-H", kLab.server, "-T", "mptcp,mptcp-sendfile", "-t", "stream,maerts", "-l", "3"}, 240s);
    ASSERT_EQ(j["results"].size(), 4u) << j.dump();
    for (const json& r : j["results"]) {
        const std::string what = r["transport"].get<std::string>() + " " + r["test"].get<std::string>();
        SCOPED_TRACE(what);
        std::cout << what << ": " << r["throughput_gbps"] << " Gbit/s\n";
        const bool stream = r["test"] == "stream";  // A sends; maerts: B sends
        const json &a = r["local"], &b = r["remote"];
        const uint64_t data = (stream ? b : a)["stream_bytes"][0].get<uint64_t>();  // what the receiver counted
        EXPECT_GT(data, 1ull << 20);
        EXPECT_EQ((stream ? a : b)["stream_bytes"][0].get<uint64_t>(), data) << "the sender sent what arrived";
        expect_two_links(a, a0, a1, kToken + (stream ? data : 0), stream ? 0 : data);
        expect_two_links(b, b0, b1, stream ? 0 : data, kToken + (stream ? data : 0));
        // Both links carried data: the receiver got some of it on each subflow.
        for (const auto& s : (stream ? b : a)["mptcp"]["connections"][0]["subflows"])
            EXPECT_GT(s["bytes_received"].get<uint64_t>(), 64u << 10) << s.dump();
    }
    // The human report: a line per subflow and side.
    Outcome o = run({zcperf_bin(), "-H", kLab.server, "-T", "mptcp", "-l", "3"}, 120s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::cout << o.out;
    size_t lines = 0;
    for (size_t at = o.out.find("  subflow "); at != std::string::npos; at = o.out.find("  subflow ", at + 1)) ++lines;
    EXPECT_EQ(lines, 4u) << o.out;  // two subflows, local and remote
    EXPECT_NE(o.out.find("mptcp stream 0: 2 subflows"), std::string::npos) << o.out;
}

}  // namespace

// The path managers are the test's only while it runs: both guests have theirs back after, as before.
TEST(Lab, MptcpOneSubflowOnEth0AndOneOnTheOffloadingNic) {
    if (!kLab.here()) GTEST_SKIP() << kNotInLab;
    if (kLab.server_offload.empty()) GTEST_SKIP() << "this lab has no offloading link (eth1): " << kLab.no_offload;
    const std::string a_before = pm_state(false), b_before = pm_state(true);
    {
        const std::string b1 = kLab.server_offload.substr(0, kLab.server_offload.rfind(':'));
        TwoSubflowPathManagers pm(b1);
        expect_subflows_on_both_links(b1);
    }
    EXPECT_EQ(pm_state(false), a_before) << "A's MPTCP limits and endpoints not put back";
    EXPECT_EQ(pm_state(true), b_before) << "B's MPTCP limits and endpoints not put back";
}
