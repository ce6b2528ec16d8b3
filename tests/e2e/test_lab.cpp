// The two-guest lab (label lab): zcperf in guest A against zcserver in guest B, across a
// virtio-net link with MSI-X IRQs, two NUMA nodes a side, and Soft-RoCE on the link in both kernels.
// Run with scripts/test_lab.sh (ctest -L lab inside A); elsewhere every test skips with the reason.
// Each test asserts the kernels' own word: /proc/interrupts counts, smp_affinity_list, move_pages,
// MSG_ZEROCOPY completions, /sys/class/net/*/statistics; B's are read through $ZCPERF_LAB_PEER, which
// goes through the lab's shared directory, not over the link, so it adds nothing to the counters.
#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <iostream>
#include <map>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "lab.hpp"
#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const Lab kLab;  // what scripts/lab.sh put in A's environment

#define REQUIRE_LAB()                                \
    do {                                             \
        if (!kLab.here()) GTEST_SKIP() << kNotInLab; \
    } while (0)

const std::string kNic = kLab.nic;  // the link's virtio-net NIC in both guests (rdma_vm.sh --link)

std::string server() { return kLab.server; }
std::string server_ip() { return kLab.server_ip(); }

// A shell command in B (like ssh B CMD), bounded.
Outcome peer(const std::string& cmd, int limit_s = 60) { return kLab.in_b(cmd, limit_s); }
std::string peer_out(const std::string& cmd) {
    Outcome o = peer(cmd);
    EXPECT_EQ(o.exit_code, 0) << "in B: " << cmd << ": " << o.err;
    return o.out;
}
std::string local_out(const std::string& cmd) {
    Outcome o = run({"bash", "-c", cmd}, 30s);
    EXPECT_EQ(o.exit_code, 0) << cmd << ": " << o.err;
    return o.out;
}

// The NIC's data IRQs (virtioN-input.Q / output.Q of eth0's device) and their smp_affinity_list, from
// /proc, in `got` ("IRQ LIST" lines, /proc/interrupts' order): the same function on either side, made of
// shell builtins only (a fork costs about 0.1 s in a TCG guest; a lab-peer request about 2.5 s).
const std::string kReadAffinities =
    "aff() { cd -P /sys/class/net/" + kNic +
    R"(/device && local d=${PWD##*/} n rest a; got=; )"
    R"(while read -r n rest; do case $rest in *" $d-input."* | *" $d-output."*) )"
    R"(read -r a </proc/irq/${n%:}/smp_affinity_list; got+="${n%:} $a"$'\n' ;; esac; done </proc/interrupts; })";
const std::string kIrqAffinities = kReadAffinities + R"(; aff && printf %s "$got")";
using Affinities = std::map<int, std::string>;
Affinities parse_affinities(const std::string& text) {
    Affinities a;
    std::istringstream in(text);
    int irq;
    std::string list;
    while (in >> irq >> list) a[irq] = list;
    return a;
}
Affinities local_affinities() { return parse_affinities(local_out(kIrqAffinities)); }
Affinities remote_affinities() { return parse_affinities(peer_out(kIrqAffinities)); }
bool all_on(const Affinities& a, const std::string& cpu) {
    if (a.empty()) return false;
    for (const auto& [irq, list] : a)
        if (list != cpu) return false;
    return true;
}
// The same IRQs, all on `cpu`.
Affinities moved(const Affinities& a, const std::string& cpu) {
    Affinities m = a;
    for (auto& [irq, list] : m) list = cpu;
    return m;
}
// Waits in B, in one lab-peer request however many looks it takes, until B's affinities are `want`, up to
// limit_s seconds (polling from A would cost a request, seconds, per look).
bool remote_affinities_become(const Affinities& want, int limit_s = 30) {
    std::string text;
    for (const auto& [irq, list] : want) text += std::to_string(irq) + " " + list + "\n";
    Outcome o = peer(kReadAffinities + "; want='" + text + "'; end=$((SECONDS + " + std::to_string(limit_s) +
                         ")); while ((SECONDS < end)); do aff; [[ $got == \"$want\" ]] && exit 0; sleep 0.2; done; "
                         "aff; printf %s \"$got\" >&2; exit 1",
                     limit_s + 30);
    EXPECT_EQ(o.exit_code, 0) << "B's IRQ affinities did not become\n"
                              << text << "within " << limit_s << " s: they are\n"
                              << o.err;
    return o.exit_code == 0;
}

bool wait_until(const std::function<bool()>& ok, std::chrono::milliseconds limit,
                std::chrono::milliseconds step = 200ms) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (ok()) return true;
        std::this_thread::sleep_for(step);
    }
    return ok();
}

// zcperf against guest B's zcserver: its one result (an empty object when there is none).
json result_against_b(std::vector<std::string> args, std::chrono::milliseconds limit = 180s) {
    args.insert(args.begin(), {"-H", server()});
    return first_result(zcperf_report(args, limit));
}

// zcservers of the test's own in B (the lab's stays untouched), started together in one lab-peer request
// (a request costs seconds in the TCG guests) and killed by their pids: one by kill(i), the rest together
// at the end.
class RemoteServers {
public:
    explicit RemoteServers(std::vector<uint16_t> ports) : ports_(std::move(ports)), pids_(ports_.size(), -1) {
        std::string start, wait;
        for (uint16_t port : ports_) {
            std::string p = std::to_string(port), log = "/tmp/lab-zcserver-" + p + ".log";
            start += "zcserver --bind " + server_ip() + " --port " + p + " --allow-irq-affinity >" + log +
                     " 2>&1 & echo $!; ";
            wait += "for i in $(seq 300); do grep -q 'listening on' " + log + " && break; sleep 0.1; done; " +
                    "grep -q 'listening on' " + log + " || { cat " + log + " >&2; exit 1; }; ";
        }
        Outcome o = peer(start + wait);
        std::istringstream in(o.out);
        for (int& pid : pids_) in >> pid;
        if (o.exit_code != 0 || pids_.back() <= 0) {
            kill_all();
            throw std::runtime_error("zcserver did not start in B: " + o.err);
        }
    }
    ~RemoteServers() { kill_all(); }
    void kill(size_t i) {
        if (pids_.at(i) > 0) peer("kill -9 " + std::to_string(pids_[i]) + " 2>/dev/null; true");
        pids_[i] = -1;
    }
    std::string address(size_t i) const { return server_ip() + ":" + std::to_string(ports_.at(i)); }

private:
    void kill_all() {
        std::string pids;
        for (int& pid : pids_)
            if (pid > 0) pids += " " + std::to_string(std::exchange(pid, -1));
        if (!pids.empty()) peer("kill -9" + pids + " 2>/dev/null; true");
    }
    std::vector<uint16_t> ports_;
    std::vector<int> pids_;
};

uint64_t stat_of(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    std::string k;
    uint64_t v;
    while (in >> k >> v)
        if (k == name) return v;
    ADD_FAILURE() << "no " << name << " in " << text;
    return 0;
}
const std::string kNicStats = "cd /sys/class/net/" + kNic +
                              "/statistics && for f in rx_bytes rx_packets tx_bytes tx_packets; "
                              "do echo \"$f $(cat $f)\"; done";

}  // namespace

// 1. --irq-cpus moves the NIC's IRQs on both sides; the interval's interrupts land on the chosen CPUs.
TEST(Lab, IrqsMovedOnBothSidesAndCountedThere) {
    REQUIRE_LAB();
    Affinities lb = local_affinities(), rb = remote_affinities();
    ASSERT_FALSE(lb.empty()) << "no virtio input/output IRQs for " << kNic << " in A";
    ASSERT_FALSE(rb.empty()) << "no virtio input/output IRQs for " << kNic << " in B";
    json r = result_against_b({"-T", "tcp", "-m", "256K", "-l", "3", "--cpu", "0,1", "--irq-cpus", "1,0"});
    ASSERT_TRUE(r.contains("local")) << r.dump();
    for (const auto& [side, cpu, before] : {std::tuple{"local", 1, lb}, std::tuple{"remote", 0, rb}}) {
        SCOPED_TRACE(side);
        const json& p = r[side]["placement"];
        EXPECT_EQ(p["interface"], kNic);
        EXPECT_FALSE(r[side].contains("rdma")) << "plain tcp reported an RDMA device (rxe0 sits on eth0)";
        ASSERT_FALSE(p["irqs"].empty()) << p.dump();
        uint64_t total = 0, on_cpu = 0;
        for (const auto& i : p["irqs"]) {
            EXPECT_EQ(i["affinity"], std::to_string(cpu)) << i.dump();
            EXPECT_EQ(i["affinity_before"], before.at(i["irq"].get<int>())) << i.dump();
            total += i["interrupts"].get<uint64_t>();
            auto per = i["per_cpu"].get<std::vector<uint64_t>>();
            if (static_cast<size_t>(cpu) < per.size()) on_cpu += per[cpu];
        }
        ASSERT_GT(total, 0u) << "no interrupts counted: " << p.dump();
        EXPECT_GE(on_cpu * 10, total * 9)
            << on_cpu << " of " << total << " interrupts on CPU " << cpu << ": " << p.dump();
    }
    EXPECT_EQ(local_affinities(), lb) << "A's IRQ affinities not put back";
    EXPECT_EQ(remote_affinities(), rb) << "B's IRQ affinities not put back";
}

// 1. ... and they are put back when zcperf (A) or zcserver (B) dies by kill -9 mid-test. One zcserver
// serves both: it outlives its client's kill -9 (and then is killed itself). The client runs until killed
// (-l 300), and each step waits for a state it can see, in B within one lab-peer request.
TEST(Lab, IrqAffinityRestoredAfterKillMinus9OnEitherSide) {
    REQUIRE_LAB();
    Affinities lb = local_affinities(), rb = remote_affinities();
    ASSERT_FALSE(all_on(lb, "1")) << "A's IRQs already on CPU 1: the move would not show";
    ASSERT_FALSE(all_on(rb, "0")) << "B's IRQs already on CPU 0: the move would not show";
    RemoteServers rs({12901});
    for (bool kill_client : {true, false}) {
        SCOPED_TRACE(kill_client ? "kill -9 zcperf in A" : "kill -9 zcserver in B");
        Process client({zcperf_bin(), "-H", rs.address(0), "-T", "tcp", "-m", "64K", "-l", "300", "--irq-cpus", "1,0"});
        ASSERT_TRUE(wait_until([] { return all_on(local_affinities(), "1"); }, 60s)) << client.stderr_so_far();
        ASSERT_TRUE(remote_affinities_become(moved(rb, "0"), 60)) << client.stderr_so_far();
        if (kill_client) {
            client.signal(SIGKILL);
            client.wait(5s);
        } else {
            rs.kill(0);
            Outcome o = client.wait(60s);
            EXPECT_FALSE(o.timed_out) << "zcperf did not notice zcserver's death";
            EXPECT_NE(o.exit_code, 0);
            EXPECT_FALSE(o.err.empty());
        }
        EXPECT_TRUE(wait_until([&] { return local_affinities() == lb; }, 20s)) << "A's IRQs not put back";
        EXPECT_TRUE(remote_affinities_become(rb, 30)) << "B's IRQs not put back";
    }
}

// 1. Tests that share a host: two clients at once with different --irq-cpus. The second is refused while the first
// holds the IRQs (on either host), naming it, and changes nothing; asked to wait, it runs once the first
// is over and finds the true originals; after both, both hosts have what they had before the first.
// Each step waits for a state it can see, never for a duration (the checks are slow commands in the TCG
// guests): the first runs until the test ends it with SIGINT, which stops it on both sides (exit 130)
// and puts its IRQs back, and only once the waiting client has said it waits ("waiting up to").
TEST(Lab, ConcurrentClientsNeverMoveEachOthersIrqs) {
    REQUIRE_LAB();
    Affinities lb = local_affinities(), rb = remote_affinities();
    ASSERT_FALSE(all_on(lb, "0")) << "A's IRQs already on CPU 0: the move would not show";
    RemoteServers rs({12903});
    Process first({zcperf_bin(), "-H", rs.address(0), "-T", "tcp", "-m", "64K", "-l", "300", "--irq-cpus", "0,0"});
    ASSERT_TRUE(wait_until([] { return all_on(local_affinities(), "0"); }, 60s)) << first.stderr_so_far();
    ASSERT_TRUE(remote_affinities_become(moved(rb, "0"), 60)) << first.stderr_so_far();
    Outcome refused = run({zcperf_bin(), "-H", rs.address(0), "-l", "2", "--irq-cpus", "1,1"}, 60s);
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_NE(refused.err.find("is held by another test on this host: zcperf pid " + std::to_string(first.pid())),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("--irq-wait"), std::string::npos) << refused.err;
    EXPECT_TRUE(all_on(local_affinities(), "0")) << "the refused test moved A's IRQs";
    EXPECT_TRUE(all_on(remote_affinities(), "0")) << "the refused test moved B's IRQs";
    Process waiting({zcperf_bin(), "-H", rs.address(0), "-T", "tcp", "-m", "64K", "-l", "2", "--irq-cpus", "1,1",
                     "--irq-wait", "120", "-o", "json"});
    ASSERT_TRUE(waiting.wait_for_stderr("waiting up to 120 s for it (--irq-wait)", 60s)) << waiting.stderr_so_far();
    EXPECT_NE(waiting.stderr_so_far().find("zcperf pid " + std::to_string(first.pid())), std::string::npos)
        << waiting.stderr_so_far();
    EXPECT_TRUE(all_on(local_affinities(), "0")) << "the waiting test moved A's IRQs";
    first.signal(SIGINT);
    Outcome o = first.wait(60s);
    EXPECT_EQ(o.exit_code, 130) << "SIGINT: stopped on both sides\n" << o.err;
    Outcome w = waiting.wait(180s);
    ASSERT_EQ(w.exit_code, 0) << w.err;
    json j = ok_report(w);
    ASSERT_TRUE(j.is_object());
    json second = j["results"][0];
    EXPECT_TRUE(has_warning(second, "(--irq-wait)")) << second.dump();
    for (const char* side : {"local", "remote"}) {
        const Affinities& before = std::string(side) == "local" ? lb : rb;
        for (const auto& i : second[side]["placement"]["irqs"]) {
            EXPECT_EQ(i["affinity"], "1") << side << " " << i.dump();
            EXPECT_EQ(i["affinity_before"], before.at(i["irq"].get<int>()))
                << side << ": the second test took the first's setting for the original: " << i.dump();
        }
    }
    EXPECT_EQ(local_affinities(), lb) << "A's IRQ affinities not what they were before the first test";
    EXPECT_TRUE(remote_affinities_become(rb, 30)) << "B's IRQ affinities not what they were before the first test";
}

// 1. ... and a kill -9 of either holder (the first test's zcperf in A, or zcserver in B) while the
// second waits: the IRQs go back, the second runs on the true originals, and after both all is as before.
// The two zcservers serve both rounds (the first's outlives its client's kill -9, then is killed itself);
// the first test runs until killed (-l 300), and the kill lands once the second says it waits.
TEST(Lab, KillMinus9OfAHolderWhileAnotherWaits) {
    REQUIRE_LAB();
    Affinities lb = local_affinities(), rb = remote_affinities();
    RemoteServers servers({12904, 12906});  // the first test's, the second's
    for (bool kill_client : {true, false}) {
        SCOPED_TRACE(kill_client ? "kill -9 the first zcperf in A" : "kill -9 the first test's zcserver in B");
        Process first({zcperf_bin(), "-H", servers.address(0), "-m", "64K", "-l", "300", "--irq-cpus", "0,0"});
        ASSERT_TRUE(wait_until([] { return all_on(local_affinities(), "0"); }, 60s)) << first.stderr_so_far();
        ASSERT_TRUE(remote_affinities_become(moved(rb, "0"), 60)) << first.stderr_so_far();
        Process second({zcperf_bin(), "-H", servers.address(1), "-m", "64K", "-l", "2", "--irq-cpus", "1,1",
                        "--irq-wait", "90", "-o", "json"});
        // It waits (it says so, naming the first) before the first is killed: an observed state, not a sleep.
        ASSERT_TRUE(second.wait_for_stderr("waiting up to 90 s for it (--irq-wait)", 60s)) << second.stderr_so_far();
        EXPECT_NE(second.stderr_so_far().find("zcperf pid " + std::to_string(first.pid())), std::string::npos)
            << second.stderr_so_far();
        EXPECT_TRUE(all_on(local_affinities(), "0")) << "the waiting test moved A's IRQs";
        if (kill_client) {
            first.signal(SIGKILL);
        } else {
            servers.kill(0);
        }
        first.wait(60s);
        Outcome o = second.wait(120s);
        ASSERT_EQ(o.exit_code, 0) << o.err;
        json j = ok_report(o);
        ASSERT_TRUE(j.is_object());
        for (const char* side : {"local", "remote"}) {
            const Affinities& before = std::string(side) == "local" ? lb : rb;
            for (const auto& i : j["results"][0][side]["placement"]["irqs"])
                EXPECT_EQ(i["affinity_before"], before.at(i["irq"].get<int>())) << side << " " << i.dump();
        }
        EXPECT_TRUE(wait_until([&] { return local_affinities() == lb; }, 20s)) << "A's IRQs not put back";
        EXPECT_TRUE(remote_affinities_become(rb, 30)) << "B's IRQs not put back";
    }
}

// 2. --mem-node puts every buffer page on the node asked for, on both sides (move_pages' word); CPUs
// on node 0 with buffers on node 1 are warned about; the NIC's node is reported as sysfs says.
TEST(Lab, BufferPagesOnTheRequestedNodeAndMismatchWarned) {
    REQUIRE_LAB();
    json r = result_against_b({"-T", "tcp", "-m", "256K", "-l", "2", "--cpu", "1,1", "--mem-node", "1,1"});
    ASSERT_TRUE(r.contains("local")) << r.dump();
    // eth0's device is the virtio device; its PCI function (the parent) has the node.
    const std::string node_cmd = "cat \"$(readlink -f /sys/class/net/" + kNic + "/device)/../numa_node\"";
    std::string local_node = local_out(node_cmd), remote_node = peer_out(node_cmd);
    ASSERT_FALSE(local_node.empty());
    ASSERT_FALSE(remote_node.empty());
    for (const auto& [side, node] : {std::pair{"local", local_node}, std::pair{"remote", remote_node}}) {
        SCOPED_TRACE(side);
        const json& p = r[side]["placement"];
        ASSERT_EQ(p["buffer_pages_by_node"].size(), 1u) << p.dump();
        EXPECT_GT(p["buffer_pages_by_node"].value("1", 0u), 0u) << p.dump();
        EXPECT_EQ(p["cpu_nodes"], json::array({1})) << p.dump();
        EXPECT_EQ(p["device_numa_node"].get<int>(), std::stoi(node)) << p.dump();
    }
    EXPECT_FALSE(has_warning(r, "not on the requested NUMA node")) << r["warnings"].dump();

    r = result_against_b({"-T", "tcp", "-m", "256K", "-l", "2", "--cpu", "0,0", "--mem-node", "1,1"});
    for (const char* side : {"local: ", "remote: "}) {
        EXPECT_TRUE(
            has_warning(r, std::string(side) + "buffer pages on NUMA node 1 but the data threads run on node(s) 0"))
            << side << r["warnings"].dump();
        if (local_node == "1\n" && remote_node == "1\n") {  // lab.sh puts each NIC on node 1
            EXPECT_TRUE(
                has_warning(r, std::string(side) + kNic + " sits on NUMA node 1 but the data threads run on node(s) 0"))
                << side << r["warnings"].dump();
        }
    }
}

// 3. On a real driver the kernel sends from user pages: the copied share of MSG_ZEROCOPY and SEND_ZC is
// below loopback's 100 % (where it is always 100 %). How far below varies from run to run (21-93 % in the
// lab, with no retransmissions): a completion covers a range of sends and says "copied" if any of them
// was, so the share counts whole ranges and moves with how the completions coalesce. What holds every
// time: some ranges went out from user pages, which never happens on loopback or veth.
TEST(Lab, ZeroCopySendNotAlwaysCopiedOnARealDriver) {
    REQUIRE_LAB();
    for (const char* t : {"tcp-msgzc", "tcp-uringzc"}) {
        SCOPED_TRACE(t);
        json r = result_against_b({"-T", t, "-m", "256K", "-l", "3"});
        ASSERT_TRUE(r.contains("local")) << r.dump();
        const json& z = r["local"]["zerocopy"];
        EXPECT_GT(z["sent_bytes"].get<uint64_t>(), 0u) << z.dump();
        EXPECT_GT(z["completions"].get<uint64_t>(), 0u) << z.dump();
        EXPECT_LT(z["copied_bytes"].get<uint64_t>(), z["sent_bytes"].get<uint64_t>()) << z.dump();
        EXPECT_LT(z["copied_pct"].get<double>(), 99.9) << z.dump();
        EXPECT_EQ(r["remote"]["bytes"], r["bytes"]);
        EXPECT_TRUE(has_warning(r, std::string(t) + ": the kernel reports it copied")) << r["warnings"].dump();
    }
}

// 3. --rx zerocopy: the mapped share is reported, and when it is low the report says why.
TEST(Lab, RxZeroCopyMappedShareWithTheReasonWhenLow) {
    REQUIRE_LAB();
    json r = result_against_b({"-T", "tcp-msgzc", "--rx", "zerocopy", "-m", "256K", "-l", "3"});
    ASSERT_TRUE(r.contains("remote")) << r.dump();
    const json& z = r["remote"]["zerocopy"];
    ASSERT_TRUE(z.contains("rx_mapped_pct")) << z.dump();
    double mapped = z["rx_mapped_pct"];
    EXPECT_EQ(z["rx_mapped_bytes"].get<uint64_t>() + z["rx_copied_bytes"].get<uint64_t>(), r["bytes"].get<uint64_t>());
    EXPECT_TRUE(has_warning(r, "rx-zerocopy: ")) << r["warnings"].dump();
    if (mapped < 50) {
        EXPECT_TRUE(has_warning(r, "receiving driver")) << r["warnings"].dump();
    }
}

// 4. RDMA from one kernel to the other: every transport and test, both sides on rxe0, the bytes agree.
TEST(Lab, RdmaAcrossTwoKernels) {
    REQUIRE_LAB();
    struct C {
        const char *transport, *test;
    };
    for (const C& c : {C{"rsocket", "stream"}, C{"rsocket", "maerts"}, C{"rsocket-iomap", "stream"},
                       C{"rdma-write", "stream"}, C{"rdma-write", "maerts"}, C{"rdma-send", "stream"},
                       C{"rdma-send", "maerts"}, C{"rdma-read", "stream"}, C{"rdma-read", "maerts"},
                       C{"rdma-send", "rr"}, C{"rdma-write", "rr"}, C{"rsocket", "rr"}, C{"rdma-send", "msgrate"}}) {
        SCOPED_TRACE(std::string(c.transport) + " " + c.test);
        bool message = std::string(c.test) == "rr" || std::string(c.test) == "msgrate";
        std::vector<std::string> args{"-T", c.transport, "-t", c.test};
        if (message) {
            args.insert(args.end(), {"-m", std::string(c.test) == "rr" ? "4K" : "64", "-l", "1"});
            // Verbs sleep on the completion channel: on two emulated CPUs a busy-polling thread starves rxe's
            // kernel threads (rr RTT p50 20-40 ms polling vs 3-8 ms sleeping in the lab, and once a 10 s stall).
            if (std::string(c.transport).rfind("rdma-", 0) == 0) args.insert(args.end(), {"--cq-mode", "event"});
        } else {
            args.insert(args.end(), {"-m", "64K", "-n", "4M"});
        }
        json r = result_against_b(args);
        ASSERT_TRUE(r.contains("local")) << r.dump();
        EXPECT_NE(r["local"]["host"], r["remote"]["host"]) << "both ends in one kernel";
        if (message) {
            EXPECT_GT(r["local"]["messages"]["messages"].get<uint64_t>(), 0u);
            EXPECT_EQ(r["local"]["messages"]["messages"], r["remote"]["messages"]["messages"]);
        } else {
            EXPECT_EQ(r["bytes"].get<uint64_t>(), 4u << 20);
            EXPECT_EQ(r["local"]["bytes"], r["remote"]["bytes"]);
        }
        if (std::string(c.transport).rfind("rdma-", 0) == 0) {
            for (const char* side : {"local", "remote"}) EXPECT_EQ(r[side]["rdma"]["device"], "rxe0") << side;
        }
    }
}

// Set-up done and data moving, seen rather than slept for: the first interval line of a client run with
// -D (its rate over B's count) shows bytes.
static bool data_flowing(const Process& client, std::chrono::milliseconds limit = 60s) {
    static const std::regex kRate(R"(\]\s+([0-9.]+) Gb/s \|)");
    return wait_until(
        [&] {
            std::string out = client.stdout_so_far();
            for (std::sregex_iterator m(out.begin(), out.end(), kRate), end; m != end; ++m)
                if (std::stod((*m)[1]) > 0) return true;
            return false;
        },
        limit, 100ms);
}

// 4. A peer killed mid-transfer, either way: the client ends clearly when B's zcserver dies; B's
// zcserver serves the next client when A's zcperf dies. The clients run until killed (-l 300, -D 0.5 to
// see the data move), so neither a slow set-up nor a fixed sleep decides when the kill lands. `rs`'s
// servers `first` and `first + 1` are this transport's (started together with the others': one request).
static void peer_killed_either_way(const char* t, RemoteServers& rs, size_t first) {
    SCOPED_TRACE(t);
    {
        Process client({zcperf_bin(), "-H", rs.address(first), "-T", t, "-m", "64K", "-l", "300", "-D", "0.5"});
        ASSERT_TRUE(data_flowing(client)) << client.stdout_so_far() << client.stderr_so_far();
        rs.kill(first);
        Outcome o = client.wait(60s);
        EXPECT_FALSE(o.timed_out);
        EXPECT_EQ(o.exit_code, 1) << o.err;
        EXPECT_FALSE(o.err.empty());
    }
    {
        Process client({zcperf_bin(), "-H", rs.address(first + 1), "-T", t, "-m", "64K", "-l", "300", "-D", "0.5"});
        ASSERT_TRUE(data_flowing(client)) << client.stdout_so_far() << client.stderr_so_far();
        client.signal(SIGKILL);
        client.wait(5s);
    }
    Outcome o = run({zcperf_bin(), "-H", rs.address(first + 1), "-T", t, "-m", "64K", "-n", "2M", "-o", "json"}, 120s);
    ASSERT_EQ(o.exit_code, 0) << "B's zcserver did not serve the next client: " << o.err;
    EXPECT_EQ(report_json(o)["results"][0]["bytes"], 2u << 20);
}

TEST(Lab, RdmaPeerKilledEitherWay) {
    REQUIRE_LAB();
    RemoteServers rs({12910, 12911});
    peer_killed_either_way("rdma-write", rs, 0);
}

// rsockets wait in rpoll, which librdmacm 44.0 (Debian 12) stops bounding once one of its timeouts has
// run out in the process: a dead peer's rsocket then held its thread forever (3 of 4 lab runs hung).
// The waits are bounded by a timerfd instead (rsocket_paths.cpp); both rsocket transports.
TEST(Lab, RsocketPeerKilledEitherWay) {
    REQUIRE_LAB();
    RemoteServers rs({12920, 12921, 12930, 12931});
    peer_killed_either_way("rsocket", rs, 0);
    peer_killed_either_way("rsocket-iomap", rs, 2);
}

// 5. The receiver's byte count against the receiving guest's NIC counters: never more than the NIC
// saw, and the NIC saw at most the headers of its packets more (plus the control connection's bytes).
TEST(Lab, ReceiverBytesMatchTheInterfaceCounters) {
    REQUIRE_LAB();
    for (const char* test : {"stream", "maerts"}) {
        SCOPED_TRACE(test);
        bool b_receives = std::string(test) == "stream";
        auto counters = [&] { return b_receives ? peer_out(kNicStats) : local_out(kNicStats); };
        std::string before = counters();
        json r = result_against_b({"-T", "tcp", "-t", test, "-m", "256K", "-n", "32M"});
        std::string after = counters();
        ASSERT_TRUE(r.contains("bytes")) << r.dump();
        uint64_t bytes = r["bytes"], rx = stat_of(after, "rx_bytes") - stat_of(before, "rx_bytes");
        uint64_t packets = stat_of(after, "rx_packets") - stat_of(before, "rx_packets");
        EXPECT_EQ(bytes, 32u << 20);
        EXPECT_GE(rx, bytes) << "the receiver counted more than its NIC received";
        // Ethernet 14 + IPv4 20..60 + TCP 20..60 per packet, and the control connection (set-up, results).
        EXPECT_LE(rx, bytes + packets * 134 + (256u << 10))
            << rx << " bytes in " << packets << " packets for " << bytes;
    }
}

// TCP_INFO across the link, both kernels. A receiver held to a 4 KiB socket buffer (-S 4K on
// B) keeps the sender's window nearly shut: the sender's kernel says so (rwnd-limited the largest share),
// and RTT and cwnd are a real link's (above loopback's few us, below a second).
TEST(Lab, TcpInfoAcrossTheLinkNamesTheStarvedReceiver) {
    REQUIRE_LAB();
    json r = result_against_b({"-T", "tcp", "-m", "64K", "-l", "3", "-S", "4K"});
    ASSERT_TRUE(r["local"].contains("tcp_info")) << r.dump();
    const json& t = r["local"]["tcp_info"][0];
    EXPECT_GT(t["rtt_us"].get<uint32_t>(), 10u) << t.dump();
    EXPECT_LT(t["rtt_us"].get<uint32_t>(), 1'000'000u) << t.dump();
    EXPECT_GT(t["cwnd"].get<uint32_t>(), 0u);
    EXPECT_GT(t["bytes_sent"].get<uint64_t>(), r["bytes"].get<uint64_t>() / 2);
    EXPECT_GT(t["rwnd_limited"].get<double>(), t["sndbuf_limited"].get<double>()) << t.dump();
    EXPECT_NE(t["limited_by"].get<std::string>().find("rwnd-limited"), std::string::npos) << t.dump();
    // B's kernel received what B counted.
    uint64_t received = 0;
    for (const auto& s : r["remote"]["tcp_info"]) received += s["bytes_received"].get<uint64_t>();
    EXPECT_GE(received, r["bytes"].get<uint64_t>());
}

// netem dropping a share of what A sends on the link, for one test's life: the qdisc goes, however the
// test ends, so the tests after it run on a clean link (the kernel puts its default qdisc back).
class NetemLoss {
public:
    explicit NetemLoss(const std::string& pct) {
        Outcome o =
            run({"bash", "-c", "modprobe sch_netem && tc qdisc replace dev " + kNic + " root netem loss " + pct + "%"},
                30s);
        if (o.exit_code != 0) throw std::runtime_error("netem on A's " + kNic + ": " + o.err);
    }
    ~NetemLoss() { run({"bash", "-c", "tc qdisc del dev " + kNic + " root"}, 30s); }
    NetemLoss(const NetemLoss&) = delete;
    NetemLoss& operator=(const NetemLoss&) = delete;
};

// TCP_INFO across a lossy link. netem drops 1 % of A's packets, single segments (the
// guests' virtio-net has TSO and GSO off): every sending stream retransmits about that share of its
// bytes (1.0-1.3 % in the runs so far, 2.0-2.7 % at 2 %), and its RTT and cwnd stay a working link's.
TEST(Lab, TcpInfoAcrossALossyLinkCountsEachStreamsRetransmits) {
    REQUIRE_LAB();
    constexpr double kLoss = 0.01;
    json r;
    {
        NetemLoss loss("1");
        r = result_against_b({"-T", "tcp", "-P", "2", "-m", "64K", "-l", "3"});
    }
    EXPECT_EQ(local_out("tc qdisc show dev " + kNic + " root").find("netem"), std::string::npos) << "netem left on";
    ASSERT_TRUE(r["local"].contains("tcp_info")) << r.dump();
    ASSERT_EQ(r["local"]["tcp_info"].size(), 2u) << r.dump();
    for (const json& t : r["local"]["tcp_info"]) {
        uint64_t sent = t["bytes_sent"], retrans = t["bytes_retrans"];
        EXPECT_GT(t["retransmits"].get<uint64_t>(), 0u) << t.dump();
        // Segments retransmitted, each at most an MSS: at least the bytes, at most all that was sent.
        EXPECT_GE(t["retransmits"].get<uint64_t>() * t["mss"].get<uint64_t>(), retrans) << t.dump();
        ASSERT_GT(sent, 0u) << t.dump();
        double share = static_cast<double>(retrans) / static_cast<double>(sent);
        EXPECT_GT(share, kLoss / 2) << t.dump();
        EXPECT_LT(share, kLoss * 3) << t.dump();
        EXPECT_GT(t["rtt_us"].get<uint32_t>(), 10u) << t.dump();
        EXPECT_LT(t["rtt_us"].get<uint32_t>(), 1'000'000u) << t.dump();
        EXPECT_GT(t["cwnd"].get<uint32_t>(), 0u) << t.dump();
        EXPECT_LT(t["cwnd"].get<uint64_t>() * t["mss"].get<uint64_t>(), sent) << t.dump();  // not one window
    }
    // B's kernel received what B counted; it sent no data, so retransmitted none.
    uint64_t received = 0;
    for (const auto& s : r["remote"]["tcp_info"]) {
        received += s["bytes_received"].get<uint64_t>();
        EXPECT_EQ(s["bytes_retrans"].get<uint64_t>(), 0u) << s.dump();
    }
    EXPECT_GE(received, r["bytes"].get<uint64_t>());
}

// crr between two kernels: both count every transaction, connect takes a link's round trip.
TEST(Lab, CrrAcrossTwoKernels) {
    REQUIRE_LAB();
    json r = result_against_b({"-T", "tcp", "-t", "crr", "-P", "2", "-l", "3"});
    ASSERT_TRUE(r.contains("crr")) << r.dump();
    uint64_t n = r["crr"]["transactions"];
    EXPECT_GT(n, 100u);
    EXPECT_EQ(r["remote"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_GT(r["crr"]["connect_us"]["p50"].get<double>(), 10.0);
    EXPECT_GE(r["crr"]["rtt_us"]["p50"].get<double>(), r["crr"]["connect_us"]["p50"].get<double>());
}

// ---- --explain between two kernels ----

// --explain across the virtio-net link: each side samples its own kernel and names where its CPU went,
// with almost nothing unsymbolized (unknown under 5 % of the busy samples: virtio_net's and virtio_pci's
// module symbols resolve), and the sender's data copy per KB is lower with MSG_ZEROCOPY than with send().
TEST(Lab, ExplainAcrossTheLinkNamesTheWorkAndZeroCopyCopiesLess) {
    REQUIRE_LAB();
    json j =
        zcperf_report({"-H", server(), "-T", "tcp,tcp-msgzc", "-m", "64K", "-l", "3", "--explain-hz", "999"}, 180s);
    ASSERT_EQ(j["results"].size(), 2u) << j.dump();
    std::map<std::string, double> copy;
    for (const json& r : j["results"]) {
        const std::string t = r["transport"];
        EXPECT_NE(r["local"]["host"], r["remote"]["host"]) << "both ends in one kernel";
        for (const char* side : {"local", "remote"}) {
            SCOPED_TRACE(t + " " + side);
            const json& e = r[side]["explain"];
            ASSERT_TRUE(e.value("ran", false)) << e.dump();
            double busy = e["sampled_busy_cpu_s"];
            ASSERT_GT(busy, 0.5) << e.dump();
            EXPECT_LT(e["category_s"]["unknown"].get<double>(), 0.05 * busy) << e["top_functions"].dump();
            EXPECT_GT(e["category_s"]["netdev"].get<double>(), 0.0) << e["top_functions"].dump();
        }
        copy[t] = r["local"]["explain"]["per_unit"]["copy"];
    }
    std::cout << "sender data copy, us/KB: tcp " << copy["tcp"] << ", tcp-msgzc " << copy["tcp-msgzc"] << "\n";
    EXPECT_GT(copy["tcp"], 0.0);
    EXPECT_LT(copy["tcp-msgzc"], copy["tcp"]) << "sender data copy, us/KB";
}

// ------------------------------------------------------------------------------------------------ UDP
// UDP between two kernels, across the virtio-net link.

namespace {

// One of A's NIC's offloads as `ethtool -k` shows it (the legacy one-bit ETHTOOL_G* commands).
bool nic_offload(uint32_t cmd, const std::string& nic = kNic) {
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq ifr{};
    std::snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", nic.c_str());
    ethtool_value v{cmd, 0};
    ifr.ifr_data = reinterpret_cast<char*>(&v);
    bool on = fd >= 0 && ::ioctl(fd, SIOCETHTOOL, &ifr) == 0 && v.data != 0;
    if (fd >= 0) ::close(fd);
    return on;
}

}  // namespace

// Paced under what the link carries, every datagram arrives: the receiver counts what the sender sent, none
// lost, and both kernels agree (no socket drop, no Udp error on B). The sender paces bursts (--batch 44:
// a sendmmsg of 44 datagrams when due, 20 Mbit/s on average), so B's NIC hands up runs of packets that B's
// GRO coalesces for the UDP_GRO socket: more than one datagram per receive, each a packet of its own on
// the link (B's rx_packets), merged in B's kernel. Above about 50 Mbit/s this link loses datagrams that
// neither kernel counts (QEMU's stream netdev between the guests drops them), which the report says
// ("lost before the socket"): not a rate for exact counts.
TEST(Lab, UdpPacedAcrossTheLinkIsExactAndCoalescedByGro) {
    REQUIRE_LAB();
    std::string before = peer_out(kNicStats);
    json r = result_against_b({"-T", "udp", "--batch", "44", "--rx", "gro", "-b", "20M", "-l", "3", "-S", "4M"});
    std::string after = peer_out(kNicStats);
    ASSERT_TRUE(r.contains("remote")) << r.dump();
    const json &tx = r["local"]["udp"], &rx = r["remote"]["udp"];
    uint64_t sent = tx["datagrams"];
    EXPECT_GT(sent, 1000u) << tx.dump();
    EXPECT_EQ(rx["datagrams"].get<uint64_t>(), sent) << rx.dump();
    EXPECT_EQ(rx["sender_datagrams"].get<uint64_t>(), sent);
    EXPECT_EQ(rx["lost"], 0) << rx.dump();
    EXPECT_EQ(rx["kernel_drops"], 0) << rx.dump();
    EXPECT_EQ(rx["snmp"]["rcvbuf_errors"], 0) << rx.dump();
    EXPECT_EQ(rx["snmp"]["in_errors"], 0) << rx.dump();
    EXPECT_EQ(r["remote"]["bytes"], r["local"]["bytes"]);
    EXPECT_EQ(r["local"]["pacing"]["method"], "sender clock") << "the guests' qdisc is fq_codel, not fq";
    EXPECT_NEAR(r["throughput_gbps"].get<double>(), 0.020, 0.002);
    // GRO: coalesced buffers, more than one datagram per receive call; on the link, one packet per datagram.
    EXPECT_GT(rx["gro_buffers"].get<uint64_t>(), 0u) << rx.dump();
    EXPECT_GT(rx["datagrams"].get<double>() / r["remote"]["ops"].get<double>(), 2.0)
        << rx["datagrams"] << " datagrams in " << r["remote"]["ops"] << " receives";
    EXPECT_GE(stat_of(after, "rx_packets") - stat_of(before, "rx_packets"), sent);
    EXPECT_GE(stat_of(after, "rx_bytes") - stat_of(before, "rx_bytes"), r["bytes"].get<uint64_t>());
}

// UDP GSO and MSG_ZEROCOPY on this link. The lab's virtio-net offloads neither checksums nor scatter-gather
// (ethtool -k: tx-checksumming off, scatter-gather off): QEMU's stream netdev carries no virtio-net header,
// so QEMU offers no VIRTIO_NET_F_CSUM and the guest's driver sets neither NETIF_F_HW_CSUM nor NETIF_F_SG.
// - UDP_SEGMENT then fails with EIO on kernels before 2024's "udp: Allow GSO transmit from devices with no
//   checksum offload" (the lab's Debian 12 6.1 among them): zcperf says why, at once, rather than the
//   server's "no UDP datagram arrived" a timeout later. A later kernel segments in software.
// - MSG_ZEROCOPY is always copied: __ip_append_data sends from user pages only through a device with
//   scatter-gather and checksum offload, so udp-msgzc's copied share is 100 % here, as on loopback.
// On a NIC with both (a real one, or the lab's eth1: virtio-net over a tap with vnet_hdr), both paths run and
// the share is below 100 % (UdpZeroCopySendsFromUserPagesOnAnOffloadingNic).
TEST(Lab, UdpGsoAndZeroCopyDoWhatTheLinksOffloadsAllow) {
    REQUIRE_LAB();
    const bool csum = nic_offload(ETHTOOL_GTXCSUM), sg = nic_offload(ETHTOOL_GSG);
    for (const char* t : {"udp-gso", "udp-msgzc"}) {
        SCOPED_TRACE(std::string(t) + (csum ? " (checksum offload)" : " (no checksum offload)"));
        std::string before = local_out(kNicStats);
        Outcome o =
            run({zcperf_bin(), "-H", server(), "-T", t, "--rx", "gro", "-b", "20M", "-l", "3", "-o", "json"}, 60s);
        if (!csum && o.exit_code != 0) {  // a kernel without the 2024 fallback
            EXPECT_EQ(o.exit_code, 1) << o.err;
            EXPECT_NE(o.err.find("send with UDP_SEGMENT (this kernel segments UDP only where the egress device "
                                 "offloads checksums"),
                      std::string::npos)
                << o.err;
            EXPECT_NE(o.err.find("Input/output error"), std::string::npos) << o.err;
            EXPECT_LT(o.seconds, 3 + 3.0) << "it waited for the server's timeout instead of saying its own failure";
            continue;
        }
        json r = first_result(ok_report(o));
        ASSERT_TRUE(r.contains("local")) << o.err;
        const json &tx = r["local"]["udp"], &rx = r["remote"]["udp"];
        uint64_t sent = tx["datagrams"];
        EXPECT_EQ(rx["datagrams"].get<uint64_t>(), sent) << rx.dump();
        EXPECT_EQ(rx["lost"], 0) << rx.dump();
        EXPECT_EQ(tx["gso_size"], 1472);  // the link's MTU 1500, less the IP and UDP headers
        uint64_t packets = stat_of(local_out(kNicStats), "tx_packets") - stat_of(before, "tx_packets");
        if (tx["gso_where"] == "software") {
            EXPECT_GE(packets, sent) << "cut in software: every datagram reached the driver as a packet of its own";
        } else {
            EXPECT_EQ(tx["gso_where"], "device");
            EXPECT_LT(packets, sent) << "cut by the device: the driver saw fewer packets than datagrams";
        }
        if (std::string(t) == "udp-msgzc") {
            const json& z = r["local"]["zerocopy"];
            EXPECT_GT(z["completions"].get<uint64_t>(), 0u) << z.dump();
            if (sg && csum)
                EXPECT_LT(z["copied_pct"].get<double>(), 100.0) << z.dump();
            else
                EXPECT_DOUBLE_EQ(z["copied_pct"].get<double>(), 100.0) << "no scatter-gather: always copied";
        }
    }
}

// The same paths across eth1, the lab's second link: virtio-net on host taps with vnet_hdr, so the guests'
// driver offloads checksums and scatter-gather (not UDP segmentation: 6.1's virtio-net has no USO).
// - UDP_SEGMENT is accepted (checksum offload) and A's kernel cuts the datagrams in software (B's eth1 then
//   receives each as a packet); paced under what the link carries, the receiver counts every one sent.
// - MSG_ZEROCOPY sends from the user's pages (__ip_append_data's rule: scatter-gather and a partial
//   checksum): the completions say the kernel copied (almost) none of it, where eth0 copies all.
// - So the sender's data copy per KB, as --explain samples it, is below udp-gso's (and tcp-msgzc's below
//   tcp's: TCP over TSO and scatter-gather). Unpaced for that (enough samples); its loss is B's, not asserted.
// Speeds and service demands are the figure's (docs/udp.md), not asserted here: TCG guests.
TEST(Lab, UdpZeroCopySendsFromUserPagesOnAnOffloadingNic) {
    REQUIRE_LAB();
    if (kLab.server_offload.empty()) GTEST_SKIP() << "this lab has no offloading link (eth1): " << kLab.no_offload;
    const std::string& nic = kLab.offload_nic;
    ASSERT_TRUE(nic_offload(ETHTOOL_GTXCSUM, nic)) << nic << ": ethtool -k says tx-checksumming off";
    ASSERT_TRUE(nic_offload(ETHTOOL_GSG, nic)) << nic << ": ethtool -k says scatter-gather off";
    constexpr double kMostlyUserPages = 10.0;  // copied share, %: the kernel's rule says 0 on this NIC
    auto zero_copied_pct = [](const json& r) {
        const json& z = r["local"]["zerocopy"];
        EXPECT_GT(z["completions"].get<uint64_t>(), 0u) << z.dump();
        EXPECT_GT(z["sent_bytes"].get<uint64_t>(), 0u) << z.dump();
        return z.value("copied_pct", 100.0);
    };

    auto b_rx_packets = [&] { return std::stoull(peer_out("cat /sys/class/net/" + nic + "/statistics/rx_packets")); };
    const uint64_t before = b_rx_packets();
    json paced = zcperf_report(
        {"-H", kLab.server_offload, "-T", "udp-gso,udp-msgzc", "--rx", "gro", "-b", "20M", "-l", "3", "-S", "4M"},
        120s);
    const uint64_t b_packets = b_rx_packets() - before;
    ASSERT_EQ(paced["results"].size(), 2u) << paced.dump();
    uint64_t all_sent = 0;
    bool software_gso = true;
    for (const json& r : paced["results"]) {
        const std::string t = r["transport"];
        SCOPED_TRACE(t + " paced");
        EXPECT_EQ(r["local"]["placement"]["interface"], nic);
        EXPECT_EQ(r["remote"]["placement"]["interface"], nic);
        const json &tx = r["local"]["udp"], &rx = r["remote"]["udp"];
        uint64_t sent = tx["datagrams"];
        all_sent += sent;
        EXPECT_GT(sent, 1000u) << tx.dump();
        EXPECT_EQ(rx["datagrams"].get<uint64_t>(), sent) << rx.dump();
        EXPECT_EQ(rx["sender_datagrams"].get<uint64_t>(), sent);
        EXPECT_EQ(rx["lost"], 0) << rx.dump();
        EXPECT_EQ(rx["kernel_drops"], 0) << rx.dump();
        EXPECT_EQ(r["remote"]["bytes"], r["local"]["bytes"]);
        EXPECT_EQ(tx["gso_size"], 1472);  // eth1's MTU 1500 (the host taps'), less the IP and UDP headers
        software_gso = software_gso && tx["gso_where"] == "software";  // 6.1's virtio-net has no USO
        if (t == "udp-msgzc") {
            double pct = zero_copied_pct(r);
            std::cout << "udp-msgzc across " << nic << ", paced: the kernel copied " << pct << " %\n";
            EXPECT_LT(pct, kMostlyUserPages) << r["local"]["zerocopy"].dump();
        }
    }
    // Cut in A's kernel: each datagram crossed the link as a packet of its own (B's eth1 saw them all).
    if (software_gso) {
        EXPECT_GE(b_packets, all_sent);
    }

    json j = zcperf_report(
        {"-H", kLab.server_offload, "-T", "tcp,tcp-msgzc,udp-gso,udp-msgzc", "-l", "3", "--explain-hz", "999"}, 180s);
    ASSERT_EQ(j["results"].size(), 4u) << j.dump();
    std::map<std::string, double> copy;
    for (const json& r : j["results"]) {
        const std::string t = r["transport"];
        SCOPED_TRACE(t + " unpaced, --explain");
        const json& e = r["local"]["explain"];
        ASSERT_TRUE(e.value("ran", false)) << e.dump();
        copy[t] = e["per_unit"]["copy"];
        if (t == "tcp-msgzc" || t == "udp-msgzc") {
            double pct = zero_copied_pct(r);
            std::cout << t << " across " << nic << ", unpaced: the kernel copied " << pct << " %\n";
            EXPECT_LT(pct, kMostlyUserPages) << r["local"]["zerocopy"].dump();
        }
    }
    std::cout << "sender data copy, us/KB: udp-gso " << copy["udp-gso"] << ", udp-msgzc " << copy["udp-msgzc"]
              << "; tcp " << copy["tcp"] << ", tcp-msgzc " << copy["tcp-msgzc"] << "\n";
    EXPECT_GT(copy["udp-gso"], 0.0);
    EXPECT_LT(copy["udp-msgzc"], copy["udp-gso"]) << "sender data copy, us/KB";
    EXPECT_GT(copy["tcp"], 0.0);
    EXPECT_LT(copy["tcp-msgzc"], copy["tcp"]) << "sender data copy, us/KB";
}

// ---- --explain's unclassified share, and zcperf survey, across the link ----

// A figure that can fail, between two kernels: on each stream path the lab runs, the share of each side's
// own processes' kernel samples that no rule names ("other kernel") or that have no symbol ("unknown") is at
// most 3 % beyond its sampling error (95 %). The guests run Debian's 6.1 kernel, whose DWARF-generated function -> file
// rules (common/explain/kernel_files/) apply there. Exceeded: the side's heaviest unclassified leaves are named. Across
// eth0, the lab's first link; the loopback version is ExplainUnclassified (test_explain.cpp).
TEST(Lab, ExplainLeavesUnderThreePercentUnclassifiedOnEachSide) {
    REQUIRE_LAB();
    // One invocation per message size (a run's set-up costs seconds in the TCG guests): TCP's paths and
    // MPTCP at 64K, UDP at 8K (one datagram a packet under eth0's MTU 9000). 4 s a path: at 2 s a
    // zero-copy sender's own kernel samples were 62-251, too few for a share of a few percent.
    const std::vector<std::pair<std::string, std::string>> runs = {
        {"tcp,tcp-msgzc,tcp-sendfile,tcp-uringzc,mptcp", "64K"}, {"udp", "8K"}};
    size_t paths = 0;
    for (const auto& [transports, size] : runs) {
        json j = zcperf_report({"-H", server(), "-T", transports, "-m", size, "-l", "4", "--explain-hz", "999"}, 300s);
        ASSERT_TRUE(j.is_object() && j.contains("results")) << transports;
        for (const json& r : j["results"]) {
            const std::string t = r["transport"];
            ++paths;
            for (const char* side : {"local", "remote"}) {
                SCOPED_TRACE(t + " " + side);
                const json& e = r[side]["explain"];
                ASSERT_TRUE(e.value("ran", false)) << e.dump();
                ASSERT_TRUE(e.contains("own_unclassified_pct")) << "no kernel samples of the test's own: " << e.dump();
                const double unclassified = e["own_unclassified_pct"].get<double>();
                const auto own = e["own_kernel_samples"].get<uint64_t>();
                // The share's sampling error (95 %, binomial): a zero-copy sender's own kernel samples are a
                // few hundred here, where 3 % is a handful of samples (a thread's exit, a file's open).
                const double error = share_error_pct(unclassified, own);
                std::cout << t << " " << side << " (" << r[side]["host"].get<std::string>() << "): unclassified "
                          << unclassified << " +- " << error << " % of the test's own kernel samples (" << own
                          << "), host-wide other " << e["share_pct"]["other"] << " %, unknown "
                          << e["share_pct"]["unknown"] << " %\n";
                EXPECT_GE(own, 100u) << "too few samples to bound a share of a few percent";
                EXPECT_LE(unclassified - error, 3.0)
                    << t << " " << side << ": " << unclassified << " +- " << error
                    << " % of the test's own kernel samples in other kernel or unknown; the heaviest unclassified "
                       "leaves:"
                    << heaviest_unclassified_leaves(e);
            }
        }
    }
    EXPECT_EQ(paths, 6u) << "a stream path did not run";
}

// zcperf survey against B's zcserver across eth1 (the link that offloads, where MSG_ZEROCOPY sends from the
// user's pages): every point measured in every round, tcp-msgzc's each with its ratios against tcp, their
// 95 % intervals and verdicts, and a crossover per path (found or not, with its text). No figure asserted:
// TCG guests on a shared host (docs/survey.md shows one run's).
TEST(Lab, SurveyAcrossTheOffloadingNic) {
    REQUIRE_LAB();
    if (kLab.server_offload.empty()) GTEST_SKIP() << "this lab has no offloading link (eth1): " << kLab.no_offload;
    // With its page, as a user across hosts would ask for it (the page's rendering is html_page's test).
    const std::string page = "/tmp/zcperf-lab-survey-" + std::to_string(getpid()) + ".html";
    Outcome o = run_zcperf({"survey", "-H", kLab.server_offload, "--paths", "tcp,tcp-msgzc", "--sizes", "16K,64K",
                            "--rounds", "3", "-l", "0.5", "-o", "json", "--html", page},
                           360s);
    ASSERT_EQ(o.exit_code, 0) << context(o);
    {
        std::ifstream in(page);
        const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        unlink(page.c_str());
        EXPECT_NE(html.find("\"kind\":\"survey\""), std::string::npos) << "no survey page at " << page;
        EXPECT_NE(html.find(kLab.server_offload), std::string::npos) << "the page does not name the server";
    }
    const json j = report_json(o);
    ASSERT_TRUE(j.is_object() && j.contains("survey")) << context(o);
    const json& s = j["survey"];
    EXPECT_EQ(s["rounds"], 3);
    ASSERT_EQ(s["points"].size(), 4u) << s.value("refused", json()).dump();
    int ratio_points = 0;
    for (const json& p : s["points"]) {
        SCOPED_TRACE(p["path"].get<std::string>() + " " + p["message_size"].dump());
        EXPECT_EQ(p["round_figures"].size(), 3u) << p.dump();
        EXPECT_GT(p["throughput_gbps"].get<double>(), 0);
        ASSERT_TRUE(p.contains("crossover")) << p.dump();
        if (p["path"] != "tcp-msgzc") continue;
        ++ratio_points;
        EXPECT_EQ(p["against"], "tcp");
        std::cout << "tcp-msgzc / tcp at " << p["message_size"].dump() << " B:";
        for (const char* k : {"throughput_ratio", "sender_service_demand_ratio", "receiver_service_demand_ratio"}) {
            ASSERT_TRUE(p[k].is_object()) << k << " " << p.dump();
            const json& f = p[k];
            ASSERT_EQ(f["interval"].size(), 2u) << k;
            EXPECT_GT(f["ratio"].get<double>(), 0) << k;
            EXPECT_LE(f["interval"][0].get<double>(), f["ratio"].get<double>()) << k;
            EXPECT_GE(f["interval"][1].get<double>(), f["ratio"].get<double>()) << k;
            std::cout << " " << k << " " << f["ratio"] << " " << f["interval"] << " " << f["verdict"] << ";";
        }
        ASSERT_TRUE(p["zerocopy"].is_object()) << p.dump();
        std::cout << " copied " << p["zerocopy"]["sender"]["copied_pct"] << " %\n";
    }
    EXPECT_EQ(ratio_points, 2);
    ASSERT_TRUE(s["crossovers"].contains("tcp-msgzc")) << s["crossovers"].dump();
    EXPECT_TRUE(s["crossovers"]["tcp-msgzc"]["found"].is_boolean());
    EXPECT_TRUE(s["crossovers"]["tcp-msgzc"]["text"].is_string());
    std::cout << "crossover across " << kLab.offload_nic << ": " << s["crossovers"]["tcp-msgzc"].dump() << "\n";
}
