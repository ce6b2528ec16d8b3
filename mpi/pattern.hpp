#pragma once
// Which ranks test which, and which pairs run at once: zcperf-mpi's --pattern as a list of rounds.
// Every pair of a round starts behind one barrier; rounds run one after another.
#include <string>
#include <vector>

namespace zc::mpi {

enum class Pattern { pairs, incast, fanout, matrix };

struct Pair {
    int client = 0;  // drives the test (zcperf's side: stream sends, maerts receives)
    int server = 0;  // runs zcserver's side in-process
    bool operator==(const Pair&) const = default;
};
using Round = std::vector<Pair>;

Pattern pattern_from_name(const std::string& name);  // throws std::invalid_argument saying what is accepted
const char* pattern_name(Pattern p);

// pairs: rank i with i+N/2 (N even), one round; incast: ranks 1..N-1 to rank 0, one round; fanout:
// rank 0 to every other rank, one round; matrix: every ordered pair, in rounds of disjoint pairs (each
// rank in at most one pair: 2(N-1) rounds for even N, 2N for odd), or with one_at_a_time one pair per
// round (N(N-1) rounds, mpiGraph's serial mode). Throws std::invalid_argument when N does not fit.
std::vector<Round> schedule(Pattern p, int ranks, bool one_at_a_time = false);

}  // namespace zc::mpi
