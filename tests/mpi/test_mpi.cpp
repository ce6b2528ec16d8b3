// zcperf-mpi end to end: real launchers (Open MPI's mpirun, Slurm's srun) and real ranks on this host.
// Each test checks what the report says against what must hold: every pair of the pattern present,
// the bytes the receiver counted equal to the bytes the sender sent, the round's aggregate the sum of
// its pairs, failed pairs named, and the job over within its bound.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "lab.hpp"
#include "process.hpp"
#include "report.hpp"

namespace zc::mpi_test {
namespace {

using e2e::context;
using e2e::Outcome;
using e2e::Process;
using e2e::report_json;
using nlohmann::json;

#ifdef ZCPERF_MPI_BIN
constexpr const char* kMpiBin = ZCPERF_MPI_BIN;
constexpr const char* kMpirun = ZCPERF_MPIRUN;
#else
constexpr const char* kMpiBin = "";
constexpr const char* kMpirun = "";
#endif

#define SKIP_WITHOUT_MPI()                                                                        \
    do {                                                                                          \
        if (!*kMpiBin)                                                                            \
            GTEST_SKIP() << "zcperf-mpi is not in this build (no MPI at configure time: install " \
                            "libopenmpi-dev openmpi-bin, or run scripts/bootstrap.sh)";           \
        if (!*kMpirun) GTEST_SKIP() << "no mpirun found at configure time (openmpi-bin)";         \
    } while (0)

// A tag in every rank's environment, so the test finds its own ranks in /proc and no one else's.
std::string test_tag() { return "zcperf-mpi-test-" + std::to_string(getpid()); }

// mpirun LAUNCHER... zcperf-mpi ARGS...: NP ranks, the job ended by mpirun itself after TIMEOUT_S.
std::vector<std::string> mpirun(int np, std::vector<std::string> args, std::vector<std::string> launcher = {},
                                int timeout_s = 90) {
    std::vector<std::string> argv{kMpirun, "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(np)};
    argv.insert(argv.end(), {"--timeout", std::to_string(timeout_s), "-x", "ZCPERF_TEST_TAG=" + test_tag()});
    argv.insert(argv.end(), launcher.begin(), launcher.end());
    argv.push_back(kMpiBin);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

const json* find_pair(const json& r, int round, int client, int server) {
    for (const auto& p : r.at("pairs"))
        if (p.at("round") == round && p.at("client_rank") == client && p.at("server_rank") == server) return &p;
    return nullptr;
}

// A pair that ran: the receiver's count equals the sender's, and it moved something.
void expect_pair_ran(const json& p) {
    ASSERT_TRUE(p.contains("result")) << p.dump();
    const json& r = p.at("result");
    uint64_t local = r.at("local").at("bytes"), remote = r.at("remote").at("bytes");
    EXPECT_EQ(local, remote) << "bytes sent != bytes received: " << p.dump();
    EXPECT_GT(r.at("bytes").get<uint64_t>(), 0u);
    EXPECT_EQ(r.at("bytes").get<uint64_t>(), local);
    EXPECT_GT(r.at("throughput_gbps").get<double>(), 0);
}

// Every round's aggregate is the sum (and min/max) of its pairs' figures.
void expect_aggregates(const json& r) {
    for (const auto& s : r.at("rounds")) {
        int round = s.at("round");
        double sum = 0, mn = 1e300, mx = 0;
        int pairs = 0, failed = 0;
        for (const auto& p : r.at("pairs")) {
            if (p.at("round") != round) continue;
            ++pairs;
            if (!p.contains("result")) {
                ++failed;
                continue;
            }
            double g = p.at("result").at("throughput_gbps");
            sum += g;
            mn = std::min(mn, g);
            mx = std::max(mx, g);
        }
        EXPECT_EQ(s.at("pairs").get<int>(), pairs);
        EXPECT_EQ(s.at("failed").get<int>(), failed);
        if (pairs == failed) continue;
        EXPECT_NEAR(s.at("throughput_gbps").at("sum").get<double>(), sum, 1e-9 * std::max(1.0, sum));
        EXPECT_DOUBLE_EQ(s.at("throughput_gbps").at("min").get<double>(), mn);
        EXPECT_DOUBLE_EQ(s.at("throughput_gbps").at("max").get<double>(), mx);
        EXPECT_GE(s.at("start_skew_us").get<double>(), 0);
        EXPECT_GT(s.at("overlap_s").get<double>(), 0) << "the pairs of round " << round << " never ran at once";
    }
}

class MpiPairs : public ::testing::TestWithParam<int> {};

TEST_P(MpiPairs, EveryPairRanAtOnceAndAddsUp) {
    SKIP_WITHOUT_MPI();
    int np = GetParam();
    Outcome o = e2e::run(mpirun(np, {"-l", "0.5", "-o", "json"}), std::chrono::seconds(120));
    ASSERT_EQ(o.exit_code, 0) << context(o);
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    EXPECT_EQ(r.at("run").at("ranks"), np);
    EXPECT_EQ(r.at("run").at("pattern"), "pairs");
    ASSERT_EQ(r.at("pairs").size(), static_cast<size_t>(np / 2));
    for (int i = 0; i < np / 2; ++i) {
        const json* p = find_pair(r, 0, i, i + np / 2);
        ASSERT_NE(p, nullptr) << "pair " << i << " -> " << i + np / 2 << " missing: " << r.dump();
        expect_pair_ran(*p);
    }
    ASSERT_EQ(r.at("rounds").size(), 1u);
    expect_aggregates(r);
    EXPECT_TRUE(r.at("errors").empty());
}

INSTANTIATE_TEST_SUITE_P(Ranks, MpiPairs, ::testing::Values(2, 4, 8));

// incast and fanout with every test kind; each round is one test kind, all pairs at once.
TEST(MpiPatterns, IncastAndFanoutForEveryTestKind) {
    SKIP_WITHOUT_MPI();
    for (const char* pattern : {"incast", "fanout"}) {
        Outcome o =
            e2e::run(mpirun(4, {"--pattern", pattern, "-t", "stream,maerts,rr,msgrate", "-l", "0.3", "-o", "json"}),
                     std::chrono::seconds(120));
        ASSERT_EQ(o.exit_code, 0) << pattern << ": " << context(o);
        json r = report_json(o);
        ASSERT_FALSE(r.is_null()) << context(o);
        ASSERT_EQ(r.at("rounds").size(), 4u);
        std::vector<std::string> kinds{"stream", "maerts", "rr", "msgrate"};
        for (int round = 0; round < 4; ++round) {
            EXPECT_EQ(r.at("rounds")[static_cast<size_t>(round)].at("test"), kinds[static_cast<size_t>(round)]);
            for (int other = 1; other < 4; ++other) {
                bool in = std::string(pattern) == "incast";
                const json* p = find_pair(r, round, in ? other : 0, in ? 0 : other);
                ASSERT_NE(p, nullptr) << pattern << " round " << round << " rank " << other;
                expect_pair_ran(*p);
            }
        }
        // rr: transactions counted by both sides and a latency; msgrate: a message rate.
        EXPECT_GT(r.at("rounds")[2].at("transactions_per_s").at("sum").get<double>(), 0);
        EXPECT_GT(r.at("rounds")[2].at("latency_us").at("median").get<double>(), 0);
        EXPECT_GT(r.at("rounds")[3].at("messages_per_s").at("sum").get<double>(), 0);
        expect_aggregates(r);
    }
}

// matrix: every ordered pair once, no rank in two pairs of one round; CSV has a row per pair.
TEST(MpiPatterns, MatrixCoversEveryOrderedPair) {
    SKIP_WITHOUT_MPI();
    Outcome o =
        e2e::run(mpirun(4, {"--pattern", "matrix", "-t", "rr", "-l", "0.2", "-o", "json"}), std::chrono::seconds(150));
    ASSERT_EQ(o.exit_code, 0) << context(o);
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    std::set<std::pair<int, int>> seen;
    std::map<int, std::set<int>> busy;
    for (const auto& p : r.at("pairs")) {
        expect_pair_ran(p);
        int round = p.at("round"), c = p.at("client_rank"), s = p.at("server_rank");
        EXPECT_TRUE(seen.insert({c, s}).second);
        EXPECT_TRUE(busy[round].insert(c).second && busy[round].insert(s).second) << "rank twice in round " << round;
    }
    EXPECT_EQ(seen.size(), 12u);
    EXPECT_EQ(r.at("rounds").size(), 6u);
    expect_aggregates(r);

    Outcome csv = e2e::run(mpirun(2, {"--pattern", "matrix", "-l", "0.2", "-o", "csv"}), std::chrono::seconds(60));
    ASSERT_EQ(csv.exit_code, 0) << context(csv);
    EXPECT_NE(csv.out.find("round,client_rank,server_rank,client_host,server_host,start_offset_us,error,transport"),
              std::string::npos)
        << csv.out;
    EXPECT_NE(csv.out.find("\n0,0,1,"), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find("\n1,1,0,"), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find("# aggregate,round,"), std::string::npos) << csv.out;
}

// A server rank that refuses (zcserver's own check, made strict on rank 3): its pair is named with the
// server's reason, the other pair's result is kept, and the job says it failed.
TEST(MpiFaults, RefusingServerRankIsNamedOthersKept) {
    SKIP_WITHOUT_MPI();
    Outcome o = e2e::run(mpirun(4, {"-l", "0.5", "-o", "json", "--fault-refuse-rank", "3"}), std::chrono::seconds(90));
    EXPECT_EQ(o.exit_code, 1) << context(o);
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    const json* bad = find_pair(r, 0, 1, 3);
    ASSERT_NE(bad, nullptr);
    ASSERT_TRUE(bad->contains("error")) << bad->dump();
    std::string why = bad->at("error");
    EXPECT_NE(why.find("server rank 3 refused"), std::string::npos) << why;
    EXPECT_NE(why.find("max-duration"), std::string::npos) << "the server's own reason is kept: " << why;
    const json* good = find_pair(r, 0, 0, 2);
    ASSERT_NE(good, nullptr);
    expect_pair_ran(*good);
    EXPECT_EQ(r.at("rounds")[0].at("failed"), 1);
}

// The pids of this test's ranks, by rank (OMPI_COMM_WORLD_RANK in their environment).
std::map<int, pid_t> find_ranks() {
    std::map<int, pid_t> out;
    DIR* d = opendir("/proc");
    if (!d) return out;
    while (dirent* e = readdir(d)) {
        pid_t pid = static_cast<pid_t>(atoi(e->d_name));
        if (pid <= 0) continue;
        std::ifstream env("/proc/" + std::string(e->d_name) + "/environ");
        std::string all((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
        if (all.find("ZCPERF_TEST_TAG=" + test_tag()) == std::string::npos) continue;
        size_t at = all.find("OMPI_COMM_WORLD_RANK=");
        if (at == std::string::npos) continue;
        out[atoi(all.c_str() + at + 21)] = pid;
    }
    closedir(d);
    return out;
}

// Ranks that the test stops or kills are never left behind: SIGCONT then SIGKILL for each on the way out
// (the launcher normally has ended them already; then the pid is gone and this does nothing).
class RankReaper {
public:
    ~RankReaper() {
        for (const auto& [rank, pid] : find_ranks()) {
            ::kill(pid, SIGCONT);
            ::kill(pid, SIGKILL);
        }
    }
};

std::map<int, pid_t> wait_for_ranks(size_t n) {
    std::map<int, pid_t> ranks;
    for (int i = 0; i < 200 && ranks.size() < n; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ranks = find_ranks();
    }
    return ranks;
}

// A --report-file path, removed (with rank 0's .tmp beside it) when the test ends.
struct ReportFile {
    std::string path = "/tmp/" + test_tag() + ".json";
    ~ReportFile() {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        std::filesystem::remove(path + ".tmp", ignored);
    }
};

// Rank 0's --report-file once it holds at least `rounds` rounds (it is written first right after the
// rendezvous, so 0 means: every rank is past MPI_Init and the rendezvous). Null when not in time.
json wait_for_report_file(const std::string& path, size_t rounds, std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in(path);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        json r = json::parse(text, nullptr, false);
        if (!r.is_discarded() && r.is_object() && r.at("rounds").size() >= rounds) return r;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return nullptr;
}

// kill -9 of one rank in the middle of its test (mpirun --enable-recovery keeps the others running):
// the job ends within its bound, the dead rank's pair is named, the other pair's result is kept.
class MpiDeadRank : public ::testing::TestWithParam<int> {};

TEST_P(MpiDeadRank, JobEndsNamingItOthersKept) {
    SKIP_WITHOUT_MPI();
    int victim = GetParam();  // 3: a server rank; 1: a client rank
    ReportFile report_file;
    Process job(mpirun(4, {"-l", "4", "-o", "json", "--mpi-timeout", "5", "--report-file", report_file.path},
                       {"--enable-recovery"}));
    std::map<int, pid_t> ranks = wait_for_ranks(4);
    ASSERT_EQ(ranks.size(), 4u) << job.stderr_so_far();
    // Past the rendezvous (a fixed wait from the ranks' start fell before the round's barrier once, in a full
    // ctest on the loaded host), then into the test: both pairs start about 1 s later.
    ASSERT_FALSE(wait_for_report_file(report_file.path, 0, std::chrono::seconds(60)).is_null())
        << "no rendezvous: " << job.stderr_so_far();
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    ASSERT_EQ(::kill(ranks[victim], SIGKILL), 0);
    Outcome o = job.wait(std::chrono::seconds(90));
    EXPECT_FALSE(o.timed_out) << context(o);
    EXPECT_LT(o.seconds, 75) << "the job must end within its bound: " << context(o);
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    const json* bad = find_pair(r, 0, 1, 3);
    ASSERT_NE(bad, nullptr) << r.dump();
    ASSERT_TRUE(bad->contains("error")) << bad->dump();
    std::string why = bad->at("error");
    if (victim == 1) {
        EXPECT_NE(why.find("client rank 1 sent no result"), std::string::npos) << why;
        bool named = false;
        for (const auto& e : r.at("errors")) named |= e.get<std::string>().find("rank(s) 1 ") != std::string::npos;
        EXPECT_TRUE(named) << r.at("errors").dump();
    } else {
        EXPECT_NE(why.find("rank 1 -> rank 3"), std::string::npos) << why;
    }
    const json* good = find_pair(r, 0, 0, 2);
    ASSERT_NE(good, nullptr);
    expect_pair_ran(*good);
}

INSTANTIATE_TEST_SUITE_P(Victim, MpiDeadRank, ::testing::Values(3, 1));

// The CSV rows of `round`'s pairs, each as column name -> value (quoted cells kept with their quotes).
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& csv, int round) {
    auto split = [](const std::string& line) {
        std::vector<std::string> cells(1);
        bool quoted = false;
        for (char c : line) {
            if (c == '"') quoted = !quoted;
            if (c == ',' && !quoted) {
                cells.emplace_back();
            } else {
                cells.back() += c;
            }
        }
        return cells;
    };
    std::istringstream in(csv);
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("round,", 0) == 0) header = split(line);
        if (header.empty() || line.rfind(std::to_string(round) + ",", 0) != 0) continue;
        std::vector<std::string> cells = split(line);
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < cells.size() && i < header.size(); ++i) row.emplace(header[i], cells[i]);
        rows.push_back(row);
    }
    return rows;
}

// Plain mpirun (no --enable-recovery), as users run it: when one rank dies Open MPI 4.1 sends SIGTERM to
// every other rank about a second later and SIGKILL 1 s after that (odls_base_sigkill_timeout), and the
// job is over. What must survive: every round finished before the death, written by rank 0 as it ended
// (CSV and human are streamed; JSON is written whole on the SIGTERM), and the pair that failed, named
// on stderr by its client rank and by every rank's last word.
class MpiDeadRankPlain : public ::testing::TestWithParam<std::string> {};

TEST_P(MpiDeadRankPlain, FinishedRoundsKeptFailedPairNamed) {
    SKIP_WITHOUT_MPI();
    RankReaper reaper;
    const std::string format = GetParam();
    // Three rounds of 3 s; the kill falls in round 1 or 2. JSON: the report file (mpirun may drop the end of
    // what rank 0 printed on the SIGTERM: a 12 KB head of the JSON was all that came through once).
    ReportFile report_file;
    const std::string& file = report_file.path;
    std::vector<std::string> args{"-t", "stream,rr,stream", "-l", "3", "-o", format, "--mpi-timeout", "10"};
    if (format == "json") args.insert(args.end(), {"--report-file", file});
    Process job(mpirun(4, args));
    std::map<int, pid_t> ranks = wait_for_ranks(4);
    ASSERT_EQ(ranks.size(), 4u) << job.stderr_so_far();
    if (format == "json") {
        ASSERT_FALSE(wait_for_report_file(file, 1, std::chrono::seconds(60)).is_null())
            << "round 0 was not written to --report-file as it ended: " << job.stderr_so_far();
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // into round 1's test
    } else {
        bool round0 = false;
        for (int i = 0; i < 300 && !round0; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            round0 = job.stdout_so_far().find(format == "csv" ? "# aggregate,0," : "round 0: ") != std::string::npos;
        }
        ASSERT_TRUE(round0) << "round 0 was not written as it ended: " << job.stdout_so_far();
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // into round 1's test
    }
    auto killed_at = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(ranks[3], SIGKILL), 0);
    Outcome o = job.wait(std::chrono::seconds(60));
    double after_kill = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
    EXPECT_FALSE(o.timed_out) << context(o);
    EXPECT_LT(after_kill, 15) << "plain mpirun ends the job within seconds of the death: " << context(o);
    EXPECT_NE(o.exit_code, 0) << context(o);
    // The launcher's word names the dead rank; the ranks name the pair it was in.
    EXPECT_NE(o.err.find("rank 3 with PID"), std::string::npos) << context(o);
    EXPECT_NE(o.err.find("1 -> 3"), std::string::npos) << "the failed pair is named on stderr: " << context(o);

    if (format == "json") {
        std::ifstream in(file);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        json r = json::parse(text, nullptr, false);
        ASSERT_FALSE(r.is_discarded()) << "--report-file is a whole JSON document: " << text << context(o);
        ASSERT_GE(r.at("rounds").size(), 1u) << context(o);
        // Every round in the file is whole. Pair 0 -> 2 ran in each; 1 -> 3 too, but in the round of the
        // kill, if rank 1 saw the death (its server's connection closed) and that round was gathered before
        // the launcher's SIGTERM: then it is there, named, with the reason.
        for (int round = 0; round < static_cast<int>(r.at("rounds").size()); ++round) {
            const json* good = find_pair(r, round, 0, 2);
            ASSERT_NE(good, nullptr) << r.dump();
            expect_pair_ran(*good);
            const json* p = find_pair(r, round, 1, 3);
            ASSERT_NE(p, nullptr) << r.dump();
            if (p->contains("error") && round > 0) {
                EXPECT_NE(p->at("error").get<std::string>().find("rank 1 -> rank 3"), std::string::npos) << p->dump();
            } else {
                expect_pair_ran(*p);
            }
        }
        expect_aggregates(r);
        // It says that the job did not end: rank 0's word on the SIGTERM, or (when the SIGKILL came first)
        // the note every round's rewrite carries until the end.
        bool said = false;
        for (const auto& e : r.at("errors")) {
            said |= e.get<std::string>().find("the launcher sent SIGTERM") != std::string::npos ||
                    e.get<std::string>().find("the job had not ended") != std::string::npos;
        }
        EXPECT_TRUE(said) << r.at("errors").dump() << context(o);
    } else if (format == "csv") {
        auto rows = csv_rows(o.out, 0);
        ASSERT_EQ(rows.size(), 2u) << o.out;
        for (auto& row : rows) {
            EXPECT_EQ(row["error"], "\"\"") << o.out;
            EXPECT_EQ(row["local_bytes"], row["remote_bytes"]) << "bytes sent != bytes received: " << o.out;
            EXPECT_GT(std::stod(row["bytes"]), 0) << o.out;
        }
        EXPECT_NE(o.out.find("# aggregate,0,stream,tcp,"), std::string::npos) << o.out;
    } else {
        EXPECT_NE(o.out.find("round 0: 2 pairs (0 failed), stream"), std::string::npos) << o.out;
    }
    // What rank 0 prints on the SIGTERM ("error: rank 0: the launcher sent SIGTERM ...") is not asserted: it
    // came through in some runs and not in others (mpirun stops forwarding output as it ends the job).
}

INSTANTIATE_TEST_SUITE_P(Output, MpiDeadRankPlain, ::testing::Values("human", "csv", "json"));

// A pair that stalls: its server rank is stopped (SIGSTOP) in the middle of the test, so its data path
// and control connection go silent while the process lives. With --mpi-timeout 3 rank 0 waits -l + 5 + 3 s
// for the round's results, names the stalled pair's client rank, keeps the other pair's result, and ends
// the job (MPI_Abort), which also ends the stopped rank.
TEST(MpiFaults, StalledPairIsNamedOthersKept) {
    SKIP_WITHOUT_MPI();
    RankReaper reaper;
    ReportFile report_file;
    const std::string& file = report_file.path;
    Process job(mpirun(4, {"-l", "3", "-o", "json", "--mpi-timeout", "3", "--report-file", file}));
    std::map<int, pid_t> ranks = wait_for_ranks(4);
    ASSERT_EQ(ranks.size(), 4u) << job.stderr_so_far();
    // Past MPI_Init and the rendezvous (a rank stopped inside MPI_Init stalls the others there, unbounded:
    // that is Open MPI's, before zcperf-mpi has a say), then into the test: the pairs start about 1 s in.
    ASSERT_FALSE(wait_for_report_file(file, 0, std::chrono::seconds(60)).is_null())
        << "no rendezvous: " << job.stderr_so_far();
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    auto stopped_at = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(ranks[3], SIGSTOP), 0);
    Outcome o = job.wait(std::chrono::seconds(90));
    double after_stop = std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped_at).count();
    EXPECT_FALSE(o.timed_out) << context(o);
    EXPECT_LT(after_stop, 30) << "-l 3 + 5 + --mpi-timeout 3, and the abort: " << context(o);
    EXPECT_NE(o.exit_code, 0) << context(o);
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    const json* bad = find_pair(r, 0, 1, 3);
    ASSERT_NE(bad, nullptr) << r.dump();
    ASSERT_TRUE(bad->contains("error")) << bad->dump();
    // Stopped during the test: rank 1 is stuck in it and named by rank 0; stopped during the set-up (a slow
    // host): rank 1's set-up fails on the silent server and rank 1 names it.
    std::string why = bad->at("error");
    EXPECT_TRUE(why.find("client rank 1 sent no result") != std::string::npos ||
                why.find("rank 1 -> rank 3") != std::string::npos)
        << why;
    const json* good = find_pair(r, 0, 0, 2);
    ASSERT_NE(good, nullptr);
    expect_pair_ran(*good);
    EXPECT_EQ(r.at("rounds")[0].at("failed"), 1);
    // Nothing of the job is left, stopped or running (the reaper is only the safety net).
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_TRUE(find_ranks().empty()) << "ranks left behind after the job ended";
}

TEST(MpiUsage, BadOptionsAreSaidOnceWithWhatToDo) {
    SKIP_WITHOUT_MPI();
    Outcome o = e2e::run(mpirun(2, {"-H", "somehost"}), std::chrono::seconds(60));
    EXPECT_EQ(o.exit_code, 2) << context(o);
    size_t first = o.err.find("zcperf-mpi: -H");
    ASSERT_NE(first, std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("zcperf-mpi: -H", first + 1), std::string::npos) << "said by every rank: " << o.err;
    Outcome odd = e2e::run(mpirun(3, {"--pattern", "pairs"}), std::chrono::seconds(60));
    EXPECT_EQ(odd.exit_code, 2) << context(odd);
    EXPECT_NE(odd.err.find("even number of ranks"), std::string::npos) << odd.err;
}

// Slurm: a one-node cluster started for this test (scripts/slurm_local.sh) and srun --mpi=pmix.
class SlurmCluster {
public:
    SlurmCluster() : dir_("/tmp/zcperf-slurm-test-" + std::to_string(getpid())) {
        Outcome o = e2e::run({"bash", std::string(ZCPERF_SOURCE_DIR) + "/scripts/slurm_local.sh", "start", dir_},
                             std::chrono::seconds(60));
        started_ = o.exit_code == 0;
        why_ = o.err;
        if (o.exit_code != 0 && o.exit_code != 77) why_ = "slurm_local.sh start failed (" + context(o) + ")";
    }
    ~SlurmCluster() {
        e2e::run({"bash", std::string(ZCPERF_SOURCE_DIR) + "/scripts/slurm_local.sh", "stop", dir_},
                 std::chrono::seconds(30));
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    bool started() const { return started_; }
    const std::string& why() const { return why_; }
    std::string conf() const { return dir_ + "/slurm.conf"; }

private:
    std::string dir_;
    bool started_ = false;
    std::string why_;
};

TEST(Slurm, SrunPmixFourTasks) {
    SKIP_WITHOUT_MPI();
    SlurmCluster cluster;
    if (!cluster.started()) GTEST_SKIP() << cluster.why();
    Outcome o = e2e::run({"env", "SLURM_CONF=" + cluster.conf(), "srun", "--mpi=pmix", "-n", "4", "--time=2",
                          "--kill-on-bad-exit=0", kMpiBin, "-l", "0.5", "-o", "json", "--rank-cpus", "0,1"},
                         std::chrono::seconds(120));
    ASSERT_EQ(o.exit_code, 0) << context(o);
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    EXPECT_EQ(r.at("run").at("ranks"), 4);
    for (int i = 0; i < 2; ++i) {
        const json* p = find_pair(r, 0, i, i + 2);
        ASSERT_NE(p, nullptr) << r.dump();
        expect_pair_ran(*p);
        // --rank-cpus by SLURM_LOCALID: local ranks 0 and 2 on CPU 0, 1 and 3 on CPU 1.
        EXPECT_EQ(p->at("result").at("local").at("cpus"), json::array({i})) << p->dump();
        EXPECT_EQ(p->at("result").at("remote").at("cpus"), json::array({i})) << p->dump();
    }
    expect_aggregates(r);
}

// One job across the two-guest lab (label lab, scripts/test_lab.sh: this runs in guest A). The guests
// have no ssh: mpirun starts B's orted through scripts/lab/mpi_agent.sh (lab-peer), and MPI's own TCP
// (out-of-band and byte transfer) is kept on the link. Ranks 0,1 in A and 2,3 in B, so both pairs of
// --pattern pairs cross the link; each is checked like the one-host tests, and the hosts must differ.
const e2e::Lab kLab;  // what scripts/lab.sh put in A's environment

// Four ranks of zcperf-mpi ARGS, 0,1 in A and 2,3 in B, everything on the link's NIC.
std::vector<std::string> lab_mpirun(std::vector<std::string> args) {
    const std::string& nic = kLab.nic;
    args.insert(args.begin(), {"--iface", nic});
    return mpirun(4, args,
                  {"--mca", "plm_rsh_agent", std::string(ZCPERF_SOURCE_DIR) + "/scripts/lab/mpi_agent.sh", "--mca",
                   "plm_rsh_no_tree_spawn", "1", "--mca", "oob_tcp_if_include", nic, "--mca", "btl_tcp_if_include", nic,
                   "--host", kLab.a_ip + ":2," + kLab.server_ip() + ":2"},
                  300);
}

#define SKIP_OUTSIDE_LAB()                                                     \
    do {                                                                       \
        if (!kLab.here() || kLab.a_ip.empty()) GTEST_SKIP() << e2e::kNotInLab; \
        SKIP_WITHOUT_MPI();                                                    \
    } while (0)

TEST(MpiLab, PairsAcrossBothGuests) {
    SKIP_OUTSIDE_LAB();
    const std::string& nic = kLab.nic;
    Outcome o = e2e::run(lab_mpirun({"-l", "3", "-o", "json"}), std::chrono::seconds(330));
    ASSERT_EQ(o.exit_code, 0) << context(o);
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    EXPECT_EQ(r.at("run").at("ranks"), 4);
    EXPECT_NE(r.at("run").at("clock_note").get<std::string>().find("2 hosts"), std::string::npos) << r.dump();
    for (int i = 0; i < 2; ++i) {
        const json* p = find_pair(r, 0, i, i + 2);
        ASSERT_NE(p, nullptr) << r.dump();
        expect_pair_ran(*p);
        EXPECT_NE(p->at("client_host"), p->at("server_host")) << "the pair did not cross the link: " << p->dump();
        // Each side's own word: the host its test side ran on.
        EXPECT_EQ(p->at("result").at("local").at("host"), p->at("client_host")) << p->dump();
        EXPECT_EQ(p->at("result").at("remote").at("host"), p->at("server_host")) << p->dump();
        // And the interface each side's data connection used: the link's NIC on both.
        EXPECT_EQ(p->at("result").at("local").at("placement").at("interface"), nic) << p->dump();
        EXPECT_EQ(p->at("result").at("remote").at("placement").at("interface"), nic) << p->dump();
    }
    expect_aggregates(r);
    EXPECT_TRUE(r.at("errors").empty()) << r.at("errors").dump();
}

// Tests that share a host: two ranks per guest, each pair asking for the link NIC's IRQs on other CPUs. The two pairs
// of a round would move the same IRQs: the second to ask is refused, naming the first; never a silent
// change. Both guests end with the IRQs as they were. No race decides it: a pair's client takes its
// host's IRQs before the round's start gate (run_driver's move_irqs, then before_start), and holds them
// until its test is over, which is after every pair of the round reached the gate or failed.
// It never got that far before: mpirun binds each of a guest's two ranks to a core, and --irq-cpus was
// checked against the rank's own CPUs, so local rank 1 (bound to CPU 1) refused "0" and left the job
// silently; the others waited at the rendezvous ("a rank did not start"). --irq-cpus is checked against
// the host's online CPUs now, and a rank that refuses what rank 0 took says so and ends the job.
// It once named a zcperf of an earlier lab test (KillMinus9OfAHolderWhileAnotherWaits) as the holder:
// rank 0 had taken the lock and not yet written its name over that test's; holders now clear their name
// before letting go (IrqAffinityGuard.TheRefusalNamesTheCurrentHolderNotAPastOne).
TEST(MpiLab, IrqCpusOfTwoRanksPerHostAreRefusedNamingTheHolder) {
    SKIP_OUTSIDE_LAB();
    const std::string affinities = "for i in /proc/irq/*/smp_affinity_list; do echo \"$i $(cat $i)\"; done";
    auto local = [&] { return e2e::run({"bash", "-c", affinities}, std::chrono::seconds(30)).out; };
    auto remote = [&] { return kLab.in_b(affinities, 30).out; };
    const std::string lb = local(), rb = remote();
    Outcome o = e2e::run(lab_mpirun({"-l", "2", "--irq-cpus", "0,1", "-o", "json"}), std::chrono::seconds(330));
    json r = report_json(o);
    ASSERT_FALSE(r.is_null()) << context(o);
    EXPECT_NE(r.dump().find("is held by another test on this host: zcperf-mpi"), std::string::npos)
        << "two pairs moved the same IRQs and nobody was told: " << r.dump();
    EXPECT_EQ(local(), lb) << "A's IRQs not as they were";
    EXPECT_EQ(remote(), rb) << "B's IRQs not as they were";
}

// A rank that refuses the command line rank 0 took (here: --cpu 0 where mpirun bound rank 1 to CPU 1) says why
// and the job ends at once, instead of leaving alone while the others wait at the rendezvous.
TEST(Mpi, ARankRefusingWhatRankZeroTookSaysWhyAndTheJobEnds) {
    SKIP_WITHOUT_MPI();
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs 2 CPUs: one core per rank";
    Outcome o = e2e::run(mpirun(2, {"-l", "1", "--cpu", "0"}, {"--bind-to", "core"}), std::chrono::seconds(60));
    EXPECT_EQ(o.exit_code, 2) << context(o);
    EXPECT_NE(o.err.find("rank 1 ("), std::string::npos) << context(o);
    EXPECT_NE(o.err.find("refused the command line rank 0 took: zcperf-mpi: local CPU 0 is not available here"),
              std::string::npos)
        << context(o);
    EXPECT_LT(o.seconds, 30) << "it waited for a timeout";
}

// --irq-cpus names the host's CPUs on both sides, whatever CPU mpirun bound a rank to: here the client rank
// (bound to CPU 0) asks for CPU 1 and the server rank (bound to CPU 1) for CPU 0. Both were refused before
// ("IRQ CPU 0 is not available on HOST; its CPUs are 1"); on loopback nothing moves (lo has no IRQs).
TEST(Mpi, IrqCpusOutsideARanksBindingAreTheHosts) {
    SKIP_WITHOUT_MPI();
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs 2 CPUs: one core per rank";
    Outcome o = e2e::run(mpirun(2, {"-l", "0.5", "--irq-cpus", "1,0", "-o", "json"}, {"--bind-to", "core"}),
                         std::chrono::seconds(60));
    ASSERT_EQ(o.exit_code, 0) << context(o);
    json r = report_json(o);
    ASSERT_EQ(r.at("pairs").size(), 1u) << r.dump();
    expect_pair_ran(r.at("pairs")[0]);
}

// ... and asking a pair to wait is refused before anything runs: a round's pairs start together.
TEST(Mpi, IrqWaitIsRefusedWithTheReason) {
    SKIP_WITHOUT_MPI();
    Outcome o = e2e::run(mpirun(2, {"-l", "1", "--irq-wait", "5"}), std::chrono::seconds(60));
    EXPECT_NE(o.exit_code, 0) << context(o);
    EXPECT_NE((o.out + o.err).find("the pairs of a round start together"), std::string::npos) << context(o);
}

}  // namespace
}  // namespace zc::mpi_test
