// --explain end to end over loopback: real zcperf and zcserver processes sampling this host's CPUs.
// Skipped (with the reason) where this user may not sample the whole system.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <map>
#include <regex>
#include <sstream>

#include "explain/categories.hpp"
#include "explain/sampler.hpp"
#include "explain/side_explainer.hpp"

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;

namespace {

// The sides' explain objects, or a skip reason when this host does not let us sample.
std::string refusal(const json& side) {
    if (!side.contains("explain")) return "no explain object";
    const json& e = side["explain"];
    return e["ran"].get<bool>() ? "" : e["problem"].get<std::string>();
}

double sum_categories(const json& cats) {
    double s = 0;
    for (const auto& [k, v] : cats.items()) s += v.get<double>();
    return s;
}

}  // namespace

TEST(Explain, ThreeBusySourcesAgreeAndUnknownIsSmall) {
    json j = zcperf_report({"-l", "3", "-m", "64K", "--cpu", "0,1", "--explain-hz", "999"});  // 5 % needs the samples
    ASSERT_EQ(j["results"].size(), 1u);
    const json& r = j["results"][0];
    if (auto why = refusal(r["local"]); !why.empty()) GTEST_SKIP() << why;
    for (const char* side : {"local", "remote"}) {
        SCOPED_TRACE(side);
        const json& e = r[side]["explain"];
        ASSERT_TRUE(e["ran"].get<bool>()) << e;
        EXPECT_EQ(e["event"], "cpu-clock");
        EXPECT_EQ(e["hz"], 999);
        double sampled = e["sampled_busy_cpu_s"], busy = e["proc_stat_busy_cpu_s"];
        double steal = e["proc_stat_steal_cpu_s"], stat = busy + steal;
        ASSERT_GT(busy, 0.5);  // a 3 s stream keeps at least one CPU busy
        // Three measures of the same busy (+ steal) time over the same CPUs and interval. The reference
        // is the kernel's exact idle clock: cpuidle's residency where the kernel has it, else /proc/stat's
        // idle, which NOHZ keeps from idle entry and exit times. The sampler weighs each sample by the
        // time since the CPU's previous one, so a late timer (a descheduled vCPU) loses nothing: it
        // must agree within 5 %. /proc/stat's busy fields are charged a tick at a time: 5 % too.
        // without cpuidle the figure is absent with its reason, never 0
        const bool has_cpuidle = e.contains("cpuidle_busy_cpu_s");
        EXPECT_NE(has_cpuidle, e.contains("cpuidle_absent")) << e;
        double cpuidle = has_cpuidle ? e["cpuidle_busy_cpu_s"].get<double>() : 0.0;
        double idle_clock = e["idle_clock_busy_cpu_s"];
        double exact = has_cpuidle ? cpuidle : idle_clock;
        ASSERT_GT(exact, 0.5) << e;
        // On busy CPUs (90 % of the capacity or more, as under CI's load) all three agree within 5 %. Where
        // CPUs idle and wake for work they do not yet (the lent machine: sampled -10 %, ticks -4 %,
        // docs/explain.md): there the figures are recorded and the report must give all three.
        const double capacity = r[side]["cpu"]["elapsed_s"].get<double>() * static_cast<double>(e["cpus"].size());
        RecordProperty(std::string(side) + "_busy_sources", ::testing::PrintToString(std::vector<double>{
                                                                sampled, busy, steal, idle_clock, cpuidle, capacity}));
        if (exact >= 0.9 * capacity) {
            EXPECT_LT(std::abs(sampled - exact) / exact, 0.05) << "sampled " << sampled << ", exact " << exact;
            EXPECT_LT(std::abs(stat - exact) / exact, 0.05)
                << "/proc/stat busy " << busy << " + steal " << steal << ", exact " << exact;
            if (cpuidle > 0) {
                EXPECT_LT(std::abs(idle_clock - cpuidle) / cpuidle, 0.05) << idle_clock << " " << cpuidle;
            }
        }
        EXPECT_EQ(e["lost_samples"], 0);
        // The categories add up to the sampled busy time, and per unit to the sampled service demand.
        EXPECT_NEAR(sum_categories(e["category_s"]), sampled, 1e-6);
        EXPECT_EQ(e["unit"], "us/KB");
        EXPECT_NEAR(sum_categories(e["per_unit"]), e["sampled_per_unit"].get<double>(), 1e-6);
        // SD is /proc/stat's busy time (netperf's: steal is not this host's work): with the steal, within 5 %
        // on busy CPUs (above).
        double sd = r[side]["service_demand_us_per_kb"].get<double>() * stat / busy;
        if (exact >= 0.9 * capacity) {
            EXPECT_NEAR(e["sampled_per_unit"].get<double>(), sd, 0.05 * sd);
        }
        EXPECT_LT(e["category_s"]["unknown"].get<double>(), 0.05 * sampled);
        // A loopback TCP stream copies, runs TCP/IP and enters the kernel: each must show.
        for (const char* c : {"copy", "tcp", "syscall"}) EXPECT_GT(e["category_s"][c].get<double>(), 0.0) << c;
        EXPECT_FALSE(e["top_functions"].empty());
        EXPECT_GE(e["per_cpu"].size(), 1u);
        EXPECT_LT(e["sampler_cpu_s"].get<double>(), 0.02 * sampled + 0.05);  // the sampler's own cost
        // the interval the events counted, on CLOCK_MONOTONIC: the measured one (between /proc/stat's snapshots)
        const double elapsed = r[side]["cpu"]["elapsed_s"];
        EXPECT_NEAR(e["sampled_until_monotonic_s"].get<double>() - e["sampled_from_monotonic_s"].get<double>(), elapsed,
                    0.02 * elapsed + 0.05);
    }
    // The human report says the same in a block under the result.
    auto o = run({zcperf_bin(), "-l", "1", "-m", "64K", "--explain"}, std::chrono::seconds(60));
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("explain local: cpu-clock " + std::to_string(zc::kDefaultExplainHz) + " Hz"),
              std::string::npos)
        << o.out;
    // the three busy sources, and what the categories add up to against the SD
    EXPECT_NE(o.out.find("busy CPU-s: sampled"), std::string::npos) << o.out;
    EXPECT_TRUE(o.out.find("by cpuidle") != std::string::npos || o.out.find("cpuidle absent (") != std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("the categories add up to the sampled busy time"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("us/KB"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("data copy"), std::string::npos) << o.out;
}

TEST(Explain, RxTruncCutsTheReceiversDataCopy) {
    // The receiver runs on CPU 1; on loopback the sender's CPU 0 carries the receive softirq, so the
    // receiver's own copy (recvmsg into its buffer) is CPU 1's: MSG_TRUNC must take most of it away.
    json j = zcperf_report({"-l", "3", "-m", "64K", "--cpu", "0,1", "--rx", "copy,trunc", "--explain-hz", "999"});
    ASSERT_EQ(j["results"].size(), 2u);
    if (auto why = refusal(j["results"][0]["remote"]); !why.empty()) GTEST_SKIP() << why;
    auto copy_per_kb_on_cpu1 = [](const json& r) {
        const json& e = r["remote"]["explain"];
        double kb = r["remote"]["bytes"].get<double>() / 1024;
        for (const auto& c : e["per_cpu"])
            if (c["cpu"] == 1) return c["category_s"]["copy"].get<double>() * 1e6 / kb;
        return 0.0;
    };
    EXPECT_EQ(j["results"][0]["rx"], "copy");
    EXPECT_EQ(j["results"][1]["rx"], "trunc");
    double copy = copy_per_kb_on_cpu1(j["results"][0]), trunc = copy_per_kb_on_cpu1(j["results"][1]);
    EXPECT_GT(copy, 0.0);
    EXPECT_LE(trunc, 0.2 * copy) << "receiver data copy us/KB: copy " << copy << ", trunc " << trunc;
    // The second result is compared with the first, category by category: each delta is the difference of
    // the two results' figures per unit. (Its sign is not asserted: the delta covers every CPU, and on a
    // noisy host the sender's CPU can gain as much copy per KB as the receiver's lost; CPU 1's is above.)
    const json& d = j["results"][1]["remote"]["explain"]["delta_vs_baseline_per_unit"];
    ASSERT_TRUE(d.is_object()) << j["results"][1]["remote"]["explain"];
    const json& base = j["results"][0]["remote"]["explain"]["per_unit"];
    const json& now = j["results"][1]["remote"]["explain"]["per_unit"];
    ASSERT_EQ(d.size(), base.size());
    for (const auto& [key, delta] : d.items())
        EXPECT_NEAR(delta.get<double>(), now[key].get<double>() - base[key].get<double>(), 1e-9) << key;
}

TEST(Explain, StacksFileIsFoldedForFlameGraphs) {
    char path[] = "/tmp/zcperf_stacks_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    json j = zcperf_report({"-l", "1", "-m", "1M", "--explain-stacks", path});
    if (auto why = refusal(j["results"][0]["local"]); !why.empty()) {
        unlink(path);
        GTEST_SKIP() << why;
    }
    std::ifstream in(path);
    std::string line;
    std::regex folded(R"(^(local|remote);[^ ].* [0-9]+$)");
    uint64_t local = 0, lines = 0;
    while (std::getline(in, line)) {
        ++lines;
        ASSERT_TRUE(std::regex_match(line, folded)) << line;
        if (line.rfind("local;", 0) == 0) local += std::stoull(line.substr(line.rfind(' ') + 1));
    }
    unlink(path);
    EXPECT_GT(lines, 10u);
    // Every busy sample is in one stack (none left out in a 1 s run).
    const json& e = j["results"][0]["local"]["explain"];
    EXPECT_EQ(local, e["busy_samples"].get<uint64_t>());
}

TEST(Explain, ZeroCopyPathShowsItsDeltas) {
    auto o = run({zcperf_bin(), "-l", "2", "-m", "64K", "-T", "tcp,tcp-msgzc", "--explain"}, std::chrono::seconds(60));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    if (o.out.find("explain local: --explain:") != std::string::npos) GTEST_SKIP() << "explain refused here";
    EXPECT_NE(o.out.find("vs tcp, local explain: "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("zero-copy bookkeeping +"), std::string::npos) << o.out;
}

TEST(Explain, WithoutPermissionTheTestStillRunsAndSaysWhatToChange) {
    // As an unprivileged user (nobody) with perf_event_paranoid above -1, system-wide sampling is refused.
    std::ifstream p("/proc/sys/kernel/perf_event_paranoid");
    int paranoid = 2;
    p >> paranoid;
    if (getuid() != 0) GTEST_SKIP() << "needs root to run a child as nobody";
    if (paranoid < 0) GTEST_SKIP() << "kernel.perf_event_paranoid = -1 lets everyone sample";
    if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no setpriv (util-linux)";
    auto o = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                  zcperf_bin(), "-l", "0.5", "-m", "64K", "--explain", "-o", "json"},
                 std::chrono::seconds(60));
    json j = ok_report(o);
    ASSERT_TRUE(j.is_object());
    const json& r = j["results"][0];
    EXPECT_GT(r["bytes"].get<uint64_t>(), 0u);
    for (const char* side : {"local", "remote"}) {
        const json& e = r[side]["explain"];
        EXPECT_FALSE(e["ran"].get<bool>());
        std::string why = e["problem"];
        EXPECT_NE(why.find("perf_event_paranoid"), std::string::npos) << why;
        EXPECT_NE(why.find("CAP_PERFMON"), std::string::npos) << why;
        EXPECT_NE(why.find("the test ran without explain"), std::string::npos) << why;
    }
}

namespace {
// Category shares (of busy samples) of a `perf script -F pid,time,ip,sym` dump, attributed with zcperf's own
// table, idle rules and walk-up: what perf saw, in zcperf's terms. User time is one bucket ("user").
// Only samples taken in [from_s, until_s] count. `stacks` gets each category's chains (four frames, leaf
// first) and their sample counts.
using CategoryStacks = std::map<std::string, std::map<std::string, int>>;
std::map<std::string, double> perf_shares(const std::string& script, double from_s, double until_s,
                                          CategoryStacks& stacks) {
    std::map<std::string, double> count;
    double busy = 0;
    std::istringstream in(script);
    std::string line;
    auto flush = [&](int pid, double time_s, std::vector<std::pair<uint64_t, std::string>>& frames) {
        if (pid < 0 || frames.empty() || time_s < from_s || time_s > until_s) return;
        std::string cat;
        if (frames[0].first < (1ull << 63)) {
            cat = "user";
        } else {
            std::vector<std::string_view> names;
            bool interrupted = false;
            for (const auto& [ip, name] : frames) {
                if (ip < (1ull << 63)) break;
                names.push_back(name);
                interrupted = interrupted || zc::is_interrupt_entry(name);
            }
            zc::Category c = names[0] == "[unknown]" ? zc::Category::unknown : zc::attribute_chain(names);
            if ((pid == 0 && !interrupted) || c == zc::Category::idle) return;
            cat = zc::category_key(c);
            std::string chain;
            for (size_t i = 0; i < names.size() && i < 4; ++i) chain += (i ? " < " : "") + std::string(names[i]);
            stacks[cat][chain] += 1;
        }
        count[cat] += 1;
        busy += 1;
    };
    int pid = -1;
    double time_s = 0;
    std::vector<std::pair<uint64_t, std::string>> frames;
    while (std::getline(in, line)) {
        if (line.empty()) {
            flush(pid, time_s, frames);
            pid = -1;
            frames.clear();
            continue;
        }
        std::istringstream l(line);
        if (pid < 0) {  // "  4242 11563.861195:"
            l >> pid >> time_s;
            continue;
        }
        std::string ip, sym;
        l >> ip >> sym;
        frames.emplace_back(std::stoull(ip, nullptr, 16), sym);
    }
    flush(pid, time_s, frames);
    for (auto& [k, v] : count) v = busy > 0 ? 100.0 * v / busy : 0;
    return count;
}
}  // namespace

// zcperf's shares against perf's over the interval zcperf sampled (its JSON's window on CLOCK_MONOTONIC, perf's
// samples on the same clock): perf's whole run also holds both sides' set-up and summaries, user time that
// put perf's user share 6 points above zcperf's in three CI runs in a row. CI (and ctest -j2 here, beside a
// ConcurrentTests test) once saw zcperf's lock share at 9-13 % where perf saw 3 %, with no sample lost on either side
// and a second perf of the same run agreeing with the first; quiet runs agree within a point or two. A misfiled
// function disagrees in every run, a passing disturbance of a shared 2-CPU host does not: up to three runs, and the
// test fails only if none agrees (the message shows every run).
TEST(Explain, CategorySharesAgreeWithPerfRecord) {
    if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/perf (Debian's linux-perf)";
    std::string runs;  // each run's disagreements
    for (int attempt = 1; attempt <= 3; ++attempt) {
        char data[] = "/tmp/zcperf_perf_XXXXXX";
        int fd = mkstemp(data);
        ASSERT_GE(fd, 0);
        close(fd);
        // perf samples the same CPUs, the same way, at the same rate and on the same clock, over zcperf's whole
        // run; its samples of the interval zcperf sampled are compared.
        auto o =
            run({"/usr/bin/perf", "record",       "-q",  "-a", "-g",         "-k", "mono", "-e", "cpu-clock", "-F",
                 "999",           "-o",           data,  "--", zcperf_bin(), "-l", "4",    "-m", "64K",       "--cpu",
                 "0,1",           "--explain-hz", "999", "-o", "json"},
                std::chrono::seconds(90));
        if (o.exit_code != 0 && o.out.empty()) {
            unlink(data);
            GTEST_SKIP() << "perf record failed here: " << o.err;
        }
        json j = report_json(o);
        ASSERT_TRUE(j.is_object()) << context(o);
        const json& e = j["results"][0]["local"]["explain"];
        if (!e["ran"].get<bool>()) {
            unlink(data);
            GTEST_SKIP() << e["problem"];
        }
        auto script = run({"/usr/bin/perf", "script", "-i", data, "-F", "pid,time,ip,sym"});
        unlink(data);
        ASSERT_EQ(script.exit_code, 0) << script.err;
        const double from_s = e["sampled_from_monotonic_s"], until_s = e["sampled_until_monotonic_s"];
        ASSERT_GT(until_s, from_s + 3.0) << "a 4 s test's sampled interval";
        CategoryStacks their_stacks;
        auto theirs = perf_shares(script.out, from_s, until_s, their_stacks);
        ASSERT_FALSE(theirs.empty()) << "perf took no sample in zcperf's interval [" << from_s << ", " << until_s
                                     << "] (not on CLOCK_MONOTONIC?)";
        double busy = e["sampled_busy_cpu_s"];
        std::map<std::string, double> ours;
        for (const auto& [k, v] : e["category_s"].items()) {
            std::string key = k == "other_process" || k == "user_crypto" ? "user" : k;  // perf: user is one bucket
            ours[key] += 100.0 * v.get<double>() / busy;
        }
        for (const auto& [k, v] : theirs) ours.try_emplace(k, 0.0);
        std::string off;
        for (const auto& [k, v] : ours) {
            double p = theirs.count(k) ? theirs[k] : 0.0;
            if (std::abs(v - p) > 5.0)
                off += " " + k + ": zcperf " + std::to_string(v) + "%, perf " + std::to_string(p) + "%;";
        }
        if (off.empty()) return;
        // What each side filed there: zcperf's folded stacks (root first) against perf's chains.
        CategoryStacks our_stacks;
        for (const auto& st : e["stacks"]) {
            std::string folded = st[0];
            std::vector<std::string> frames;
            std::istringstream split(folded);
            for (std::string f; std::getline(split, f, ';');) frames.push_back(f);
            std::reverse(frames.begin(), frames.end());
            if (frames.empty() || frames[0].empty() || frames[0][0] == '[') continue;
            std::vector<std::string_view> names(frames.begin(), frames.end());
            std::string chain;
            for (size_t i = 0; i < frames.size() && i < 4; ++i) chain += (i ? " < " : "") + frames[i];
            our_stacks[zc::category_key(zc::attribute_chain(names))][chain] += st[1].get<int>();
        }
        auto top = [](const std::map<std::string, int>& m) {
            std::vector<std::pair<int, std::string>> v;
            for (const auto& [k, n] : m) v.emplace_back(n, k);
            std::sort(v.rbegin(), v.rend());
            std::string out;
            for (size_t i = 0; i < v.size() && i < 3; ++i)
                out += " [" + std::to_string(v[i].first) + "] " + v[i].second;
            return out;
        };
        for (const auto& [k, v] : ours)
            if (std::abs(v - (theirs.count(k) ? theirs[k] : 0.0)) > 5.0 && k != "user")
                off += "\n    " + k + " zcperf's top:" + top(our_stacks[k]) + "\n    " + k +
                       " perf's top:" + top(their_stacks[k]);
        // The conditions, for a cause not yet pinned: steal (a vCPU descheduled while it holds a lock makes
        // the other spin), the host's load, and each CPU's sampled busy time.
        std::ifstream loadavg("/proc/loadavg");
        std::string load;
        std::getline(loadavg, load);
        std::string cpus;
        for (const auto& c : e["per_cpu"]) cpus += " cpu" + c["cpu"].dump() + " " + c["busy_s"].dump() + " s";
        runs += "\n  run " + std::to_string(attempt) + " (zcperf lost " + e["lost_samples"].dump() +
                " samples; steal " + e["proc_stat_steal_cpu_s"].dump() + " CPU-s; busy" + cpus + "; loadavg " + load +
                "):" + off;
    }
    ADD_FAILURE() << "zcperf's category shares differ from perf's by more than 5 points in every run:" << runs;
}

// User-space TLS's crypto is OpenSSL's, in libcrypto's text: a sampler of this process sees AES-256-GCM
// run through EVP as zcperf's user time in libcrypto, apart from the rest of its user time.
TEST(Explain, OpenSslInThisProcessIsUserCrypto) {
    const int cpu = sched_getcpu();
    cpu_set_t all, one;
    ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);  // stay on the sampled CPU
    struct Restore {
        cpu_set_t* all;
        ~Restore() { sched_setaffinity(0, sizeof(*all), all); }
    } restore{&all};
    zc::Sampler sampler({cpu}, 999, {getpid()});
    if (!sampler.ok()) GTEST_SKIP() << sampler.problem();
    std::vector<unsigned char> key(32, 7), iv(12, 9), in(64 * 1024, 'z'), out(in.size() + 16);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    ASSERT_NE(ctx, nullptr);
    sampler.enable();
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    size_t records = 0;
    for (; std::chrono::steady_clock::now() < until; ++records) {
        int n = 0;
        ASSERT_EQ(EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, key.data(), iv.data()), 1);
        ASSERT_EQ(EVP_EncryptUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size())), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx, out.data() + n, &n), 1);
    }
    sampler.disable();
    EVP_CIPHER_CTX_free(ctx);
    zc::KernelSymbols symbols("/proc/kallsyms");
    zc::ExplainSide e = zc::summarize_samples(sampler.totals(), symbols, sampler.period_s(), false);
    const double crypto = e.category(zc::Category::user_crypto), rest = e.category(zc::Category::user);
    // Most of this thread's user time is AES-GCM; a bound that holds on a loaded host (other processes'
    // time on this CPU is theirs, not ours).
    EXPECT_GT(crypto, 0.0) << records << " records";
    EXPECT_GT(crypto, 2 * rest) << "libcrypto " << crypto << " s, the rest of our user time " << rest << " s";
}

// A figure that can fail: on every loopback stream path, the share of the test's own processes' kernel
// samples that no rule names ("other kernel") or that have no symbol ("unknown") is at most 3 %, with the
// name rules and the source-file rules of Debian's kernels (docs/explain.md: the measured shares). The
// host-wide share (share_pct) is recorded beside it: both sides sample the whole host, so it holds other
// processes' kernel work too (a build beside the test, another test's read of /proc/kallsyms).
// Exceeded: the heaviest unclassified leaves are named. A path this host cannot run (MPTCP off, no
// io_uring) is skipped with zcperf's words.
class ExplainUnclassified : public ::testing::TestWithParam<const char*> {};

TEST_P(ExplainUnclassified, OtherKernelAndUnknownStayUnderThreePercent) {
    const std::string transport = GetParam();
    const std::string size = transport == "udp" ? "16K" : "64K";
    // 4 s: the test's own kernel work outside the path (its /proc reads at the interval's edges) is a fixed
    // few samples, which a short run's small count of path samples (mptcp: 131 at 2 s under load) magnifies.
    auto o = run_zcperf({"-T", transport, "-l", "4", "-m", size, "--explain-hz", "999", "-o", "json"},
                        std::chrono::seconds(60));
    if (o.exit_code != 0 && transport != "tcp") GTEST_SKIP() << transport << " does not run here: " << o.err;
    const json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 1u) << context(o);
    const json& side = j["results"][0]["local"];
    if (auto why = refusal(side); !why.empty()) GTEST_SKIP() << why;
    const json& e = side["explain"];
    // Host-wide (other processes' kernel work included: recorded) and of the test's own processes'
    // kernel samples (bounded): other kernel and unknown.
    const double host = e["share_pct"]["other"].get<double>() + e["share_pct"]["unknown"].get<double>();
    RecordProperty("host_unclassified_pct", ::testing::PrintToString(host));
    ASSERT_TRUE(e.contains("own_unclassified_pct")) << e;
    const double unclassified = e["own_unclassified_pct"].get<double>();
    RecordProperty("own_unclassified_pct", ::testing::PrintToString(unclassified));
    // Beyond the share's sampling error: on a loaded host a run may hold only ~150 of the test's own kernel
    // samples, where 3 % is a handful of zcperf's own /proc reads (a clear excess still fails).
    const auto own = e["own_kernel_samples"].get<uint64_t>();
    const double error = share_error_pct(unclassified, own);
    std::cout << transport << ": unclassified " << unclassified << " +- " << error
              << " % of the test's kernel samples (" << own << "), " << host << " % host-wide\n";
    EXPECT_LE(unclassified - error, 3.0) << transport << ": " << unclassified << " +- " << error
                                         << " % of the test's own kernel samples in other kernel or unknown; the "
                                            "heaviest unclassified leaves host-wide:"
                                         << heaviest_unclassified_leaves(e);
}

INSTANTIATE_TEST_SUITE_P(StreamPaths, ExplainUnclassified,
                         ::testing::Values("tcp", "tcp-msgzc", "tcp-sendfile", "tcp-uringzc", "udp", "mptcp"),
                         [](const auto& info) {
                             std::string n = info.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });
