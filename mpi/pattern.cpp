#include "pattern.hpp"

#include <stdexcept>

namespace zc::mpi {

Pattern pattern_from_name(const std::string& name) {
    if (name == "pairs") return Pattern::pairs;
    if (name == "incast") return Pattern::incast;
    if (name == "fanout") return Pattern::fanout;
    if (name == "matrix") return Pattern::matrix;
    throw std::invalid_argument("unknown pattern '" + name + "'; use pairs, incast, fanout or matrix");
}

const char* pattern_name(Pattern p) {
    switch (p) {
        case Pattern::pairs:
            return "pairs";
        case Pattern::incast:
            return "incast";
        case Pattern::fanout:
            return "fanout";
        case Pattern::matrix:
            return "matrix";
    }
    return "pairs";
}

namespace {

// The circle method: with an even count (a dummy added for odd N), round r pairs position 0 with r's
// rotation and the rest around the circle, so every unordered pair meets exactly once in N-1 rounds.
std::vector<std::vector<std::pair<int, int>>> round_robin(int n) {
    int m = n % 2 ? n + 1 : n;  // rank m-1 is the dummy when n is odd: its partner sits the round out
    std::vector<std::vector<std::pair<int, int>>> rounds;
    for (int r = 0; r < m - 1; ++r) {
        std::vector<std::pair<int, int>> round;
        for (int i = 0; i < m / 2; ++i) {
            int a = i == 0 ? m - 1 : (r + i) % (m - 1);
            int b = (r + m - 1 - i) % (m - 1);
            if (a < n && b < n) round.emplace_back(std::min(a, b), std::max(a, b));
        }
        rounds.push_back(std::move(round));
    }
    return rounds;
}

}  // namespace

std::vector<Round> schedule(Pattern p, int n, bool one_at_a_time) {
    if (n < 2) {
        throw std::invalid_argument(std::string("--pattern ") + pattern_name(p) + " needs 2 ranks or more, got " +
                                    std::to_string(n) + " (mpirun -np 2, srun -n 2)");
    }
    std::vector<Round> rounds;
    switch (p) {
        case Pattern::pairs: {
            if (n % 2) {
                throw std::invalid_argument("--pattern pairs needs an even number of ranks (rank i with i+N/2), got " +
                                            std::to_string(n));
            }
            Round r;
            for (int i = 0; i < n / 2; ++i) r.push_back({i, i + n / 2});
            rounds.push_back(r);
            break;
        }
        case Pattern::incast: {
            Round r;
            for (int i = 1; i < n; ++i) r.push_back({i, 0});
            rounds.push_back(r);
            break;
        }
        case Pattern::fanout: {
            Round r;
            for (int i = 1; i < n; ++i) r.push_back({0, i});
            rounds.push_back(r);
            break;
        }
        case Pattern::matrix: {
            if (one_at_a_time) {
                for (int c = 0; c < n; ++c)
                    for (int s = 0; s < n; ++s)
                        if (c != s) rounds.push_back({{c, s}});
                break;
            }
            auto rr = round_robin(n);
            for (const auto& pairs : rr) {
                Round r;
                for (auto [a, b] : pairs) r.push_back({a, b});
                rounds.push_back(r);
            }
            for (const auto& pairs : rr) {  // the other direction of every pair
                Round r;
                for (auto [a, b] : pairs) r.push_back({b, a});
                rounds.push_back(r);
            }
            break;
        }
    }
    return rounds;
}

}  // namespace zc::mpi
