// zcperf-mpi's logic that needs no MPI: the patterns' rounds, placement by local rank (CPU lists and
// cuda:local's GPU mapping, tested here because no GPU is needed), and the aggregate of a round.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "core/buffer_spec.hpp"
#include "parse_cli.hpp"
#include "pattern.hpp"
#include "placement.hpp"
#include "report/pairs_report.hpp"

namespace zc::mpi {
namespace {

// No rank in two pairs of one round, every ordered pair exactly once.
void expect_matrix(int n, bool one) {
    auto rounds = schedule(Pattern::matrix, n, one);
    std::set<std::pair<int, int>> seen;
    for (const auto& r : rounds) {
        std::set<int> busy;
        for (const auto& p : r) {
            EXPECT_NE(p.client, p.server);
            EXPECT_TRUE(busy.insert(p.client).second) << "n=" << n << " rank " << p.client << " twice in a round";
            EXPECT_TRUE(busy.insert(p.server).second) << "n=" << n << " rank " << p.server << " twice in a round";
            EXPECT_TRUE(seen.insert({p.client, p.server}).second) << "n=" << n << " pair twice";
        }
        if (one) {
            EXPECT_EQ(r.size(), 1u);
        }
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(n * (n - 1))) << "n=" << n;
}

TEST(MpiPattern, PairsIncastFanout) {
    auto pairs = schedule(Pattern::pairs, 8);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0], (Round{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
    auto incast = schedule(Pattern::incast, 4);
    ASSERT_EQ(incast.size(), 1u);
    EXPECT_EQ(incast[0], (Round{{1, 0}, {2, 0}, {3, 0}}));
    auto fanout = schedule(Pattern::fanout, 3);
    EXPECT_EQ(fanout[0], (Round{{0, 1}, {0, 2}}));
}

TEST(MpiPattern, MatrixRoundsAreDisjointAndComplete) {
    for (int n = 2; n <= 9; ++n) {
        expect_matrix(n, false);
        expect_matrix(n, true);
    }
    EXPECT_EQ(schedule(Pattern::matrix, 8).size(), 14u);  // 2(N-1)
    EXPECT_EQ(schedule(Pattern::matrix, 5).size(), 10u);  // 2N for odd N
    EXPECT_EQ(schedule(Pattern::matrix, 4, true).size(), 12u);
}

TEST(MpiPattern, BadInputSaysWhatToDo) {
    try {
        schedule(Pattern::pairs, 3);
        FAIL() << "odd pairs accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("even number of ranks"), std::string::npos);
    }
    EXPECT_THROW(schedule(Pattern::incast, 1), std::invalid_argument);
    EXPECT_THROW(pattern_from_name("ring"), std::invalid_argument);
    EXPECT_EQ(pattern_from_name("matrix"), Pattern::matrix);
}

TEST(MpiPlacement, LocalRankFromTheLauncher) {
    std::map<std::string, std::string> env;
    auto get = [&](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    EXPECT_EQ(local_rank_from_env(get), -1);
    env["SLURM_LOCALID"] = "3";
    EXPECT_EQ(local_rank_from_env(get), 3);
    env["OMPI_COMM_WORLD_LOCAL_RANK"] = "1";  // mpirun's wins: under srun it is not set
    EXPECT_EQ(local_rank_from_env(get), 1);
    env["OMPI_COMM_WORLD_LOCAL_RANK"] = "x";
    EXPECT_THROW(local_rank_from_env(get), std::invalid_argument);
}

TEST(MpiPlacement, CpuListsPerLocalRank) {
    auto lists = parse_rank_cpus("0+1,2-3,5");
    ASSERT_EQ(lists.size(), 3u);
    EXPECT_EQ(cpus_for_local_rank(lists, 0), (std::vector<int>{0, 1}));
    EXPECT_EQ(cpus_for_local_rank(lists, 1), (std::vector<int>{2, 3}));
    EXPECT_EQ(cpus_for_local_rank(lists, 2), (std::vector<int>{5}));
    EXPECT_EQ(cpus_for_local_rank(lists, 3), (std::vector<int>{0, 1}));  // round again
    EXPECT_TRUE(cpus_for_local_rank({}, 2).empty());
    EXPECT_THROW(parse_rank_cpus("0,,1"), std::invalid_argument);
}

// Seed 004's resource sets: one GPU per task (cuda:local) and two tasks on one GPU (cuda:local:2).
TEST(MpiPlacement, CudaLocalMapsLocalRanksToGpus) {
    BufferSpec each = buffer_spec_from_name("cuda:local"), two = buffer_spec_from_name("cuda:local:2");
    EXPECT_EQ(buffer_spec_name(each), "cuda:local");
    EXPECT_EQ(buffer_spec_name(two), "cuda:local:2");
    for (int lr = 0; lr < 8; ++lr) {
        EXPECT_EQ(resolve_local_rank(each, lr, 4).device, lr % 4);
        EXPECT_EQ(resolve_local_rank(two, lr, 4).device, (lr / 2) % 4);
        EXPECT_FALSE(resolve_local_rank(two, lr, 4).per_local_rank());
    }
    EXPECT_EQ(resolve_local_rank(two, 1, 1).device, 0);                              // two tasks, one GPU
    EXPECT_EQ(resolve_local_rank(buffer_spec_from_name("cuda:3"), 5, 4).device, 3);  // a named device stays
    EXPECT_THROW(resolve_local_rank(each, 0, 0), std::invalid_argument);
    EXPECT_THROW(buffer_spec_from_name("cuda:local:0"), std::invalid_argument);
}

TEST(MpiPlacement, ZcperfRefusesCudaLocal) {
    ClientOptions o;
    EXPECT_EQ(zc::test::parse({"--buffer", "cuda:local"}, o), 2);
}

PairRecord ok_pair(int round, int client, int server, double gbps, double start, double elapsed) {
    PairRecord p;
    p.round = round;
    p.client_rank = client;
    p.server_rank = server;
    p.start_wall_s = start;
    p.result.throughput_gbps = gbps;
    p.result.elapsed_s = elapsed;
    return p;
}

TEST(MpiReport, RoundAggregateIsTheSumOfItsPairs) {
    std::vector<PairRecord> pairs{ok_pair(0, 0, 2, 10, 100.0, 2.0), ok_pair(0, 1, 3, 4, 100.001, 2.0),
                                  ok_pair(0, 4, 5, 6, 100.0005, 1.5), ok_pair(1, 0, 1, 99, 200, 1)};
    PairRecord failed = ok_pair(0, 6, 7, 0, 0, 0);
    failed.error = "server rank 7 refused";
    pairs.push_back(failed);
    RoundSummary s = summarize_round(0, pairs);
    EXPECT_EQ(s.pairs, 4);
    EXPECT_EQ(s.failed, 1);
    EXPECT_DOUBLE_EQ(s.gbps.sum, 20);
    EXPECT_DOUBLE_EQ(s.gbps.min, 4);
    EXPECT_DOUBLE_EQ(s.gbps.median, 6);
    EXPECT_DOUBLE_EQ(s.gbps.max, 10);
    EXPECT_NEAR(s.start_skew_us, 1000, 1e-3);
    EXPECT_NEAR(s.overlap_s, 101.5005 - 100.001, 1e-9);  // the first end (100.0005 + 1.5) minus the last start
    EXPECT_DOUBLE_EQ(s.longest_interval_s, 2.0);
    EXPECT_DOUBLE_EQ(spread_of({1, 2, 3, 4}).median, 2.5);
}

// The CSV is streamed a round at a time (so a launcher's kill keeps the rounds already written): the
// head has both column lines, then each round's pairs and its aggregate.
TEST(MpiReport, CsvHasEveryPairAndTheAggregate) {
    PairsReport r;
    r.pairs = {ok_pair(0, 0, 1, 5, 1, 1)};
    PairRecord failed = ok_pair(0, 2, 3, 0, 0, 0);
    failed.error = "client rank 2 sent no result";
    r.pairs.push_back(failed);
    r.rounds.push_back(summarize_round(0, r.pairs));
    std::ostringstream out;
    write_pairs_report("csv", out, r);
    std::istringstream in(out.str());
    std::string header, row1, row2, agg_header, agg;
    std::getline(in, header);
    std::getline(in, agg_header);
    std::getline(in, row1);
    std::getline(in, row2);
    std::getline(in, agg);
    auto commas = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
    EXPECT_EQ(header.rfind("round,client_rank,server_rank,client_host,server_host,start_offset_us,error,", 0), 0u);
    EXPECT_EQ(commas(row1), commas(header));
    EXPECT_EQ(commas(row2), commas(header));  // a failed pair keeps the columns
    EXPECT_NE(row2.find("client rank 2 sent no result"), std::string::npos);
    EXPECT_EQ(agg_header.rfind("# aggregate,round,", 0), 0u);
    EXPECT_EQ(agg.rfind("# aggregate,0,", 0), 0u);
    EXPECT_EQ(commas(agg), commas(agg_header));
}

// The human report written a round at a time is the same as written at once, and the tail has the errors.
TEST(MpiReport, StreamedHumanReportEqualsTheWholeOne) {
    PairsReport r;
    r.pairs = {ok_pair(0, 0, 1, 5, 1, 1), ok_pair(1, 1, 0, 7, 3, 1)};
    r.rounds = {summarize_round(0, r.pairs), summarize_round(1, r.pairs)};
    r.errors = {"the launcher ended the job"};
    std::ostringstream whole, streamed;
    write_pairs_report("human", whole, r);
    write_pairs_head("human", streamed, r);
    write_pairs_round("human", streamed, r, 0);
    write_pairs_round("human", streamed, r, 1);
    write_pairs_tail("human", streamed, r);
    EXPECT_EQ(whole.str(), streamed.str());
    std::string text = whole.str();
    size_t pair1 = text.find("\n    1 "), agg0 = text.find("round 0:"), agg1 = text.find("round 1:");
    ASSERT_NE(agg0, std::string::npos) << text;
    EXPECT_LT(agg0, pair1) << "round 0's aggregate comes before round 1's pairs: " << text;
    EXPECT_LT(pair1, agg1) << text;
    EXPECT_NE(text.find("error: the launcher ended the job"), std::string::npos) << text;
    std::ostringstream json_head;
    write_pairs_head("json", json_head, r);
    write_pairs_round("json", json_head, r, 0);
    EXPECT_EQ(json_head.str(), "") << "JSON is one document, written whole by the tail";
}

}  // namespace
}  // namespace zc::mpi
