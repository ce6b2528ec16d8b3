#include "report/pairs_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace zc {

Spread spread_of(std::vector<double> v) {
    Spread s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    for (double x : v) s.sum += x;
    s.min = v.front();
    s.max = v.back();
    size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return s;
}

RoundSummary summarize_round(int round, const std::vector<PairRecord>& pairs) {
    RoundSummary s;
    s.round = round;
    std::vector<double> gbps, rate, latency;
    double first_start = std::numeric_limits<double>::max(), last_start = 0;
    double first_end = std::numeric_limits<double>::max();
    for (const auto& p : pairs) {
        if (p.round != round) continue;
        ++s.pairs;
        if (!p.ok()) {
            ++s.failed;
            continue;
        }
        const TestResult& r = p.result;
        s.test = r.test;
        s.transport = r.transport;
        s.message_size = r.message_size;
        gbps.push_back(r.throughput_gbps);
        if (is_message_test(r.test)) rate.push_back(r.messages.messages_per_s);
        if (is_transaction_test(r.test)) latency.push_back(r.messages.rtt.mean_us / 2);
        first_start = std::min(first_start, p.start_wall_s);
        last_start = std::max(last_start, p.start_wall_s);
        first_end = std::min(first_end, p.start_wall_s + r.elapsed_s);
        s.longest_interval_s = std::max(s.longest_interval_s, r.elapsed_s);
    }
    s.gbps = spread_of(gbps);
    s.rate = spread_of(rate);
    s.latency_us = spread_of(latency);
    if (!gbps.empty()) {
        s.start_skew_us = (last_start - first_start) * 1e6;
        s.overlap_s = std::max(0.0, first_end - last_start);
    }
    return s;
}

namespace {

nlohmann::json to_json(const Spread& s) {
    return {{"sum", s.sum}, {"min", s.min}, {"median", s.median}, {"max", s.max}};
}

enum class Format { human, csv, json };
Format format_of(const std::string& name) {
    return name == "csv" ? Format::csv : name == "json" ? Format::json : Format::human;
}

constexpr const char* kRound = "round";  // a pair's and a round's

std::string rank_at(int rank, const std::string& host) { return fmt::format("{}@{}", rank, host); }

void write_human_head(std::ostream& out, const PairsReport& r) {
    out << r.header.software << ": pattern " << r.pattern << ", " << r.ranks << " ranks\n";
    out << "command: " << r.header.command_line << "\n";
    out << "start times: " << r.clock_note << "\n";
    out << "each round: its pairs, then their aggregate (sum over the pairs that ran at once; min/median/max per "
           "pair)\n\n";
    // The columns of write_human_pair, right-aligned to its widths.
    out << "round           client           server    test    transport     size       Gb/s   msg|tran/s "
           "latency_us  l.CPU%  r.CPU%  start_us\n";
}

void write_human_pair(std::ostream& out, const PairRecord& p) {
    const TestResult& t = p.result;
    if (!p.ok()) {
        out << fmt::format("{:>5} {:>16} {:>16} FAILED: {}\n", p.round, rank_at(p.client_rank, p.client_host),
                           rank_at(p.server_rank, p.server_host), p.error);
        return;
    }
    bool msg = is_message_test(t.test);
    out << fmt::format("{:>5} {:>16} {:>16} {:>7} {:>12} {:>8} {:>10.3f} {:>12} {:>10} {:>7.1f} {:>7.1f} {:>9.1f}\n",
                       p.round, rank_at(p.client_rank, p.client_host), rank_at(p.server_rank, p.server_host),
                       workload_name(t.test), transport_name(t.transport), t.message_size, t.throughput_gbps,
                       msg ? fmt::format("{:.0f}", t.messages.messages_per_s) : "-",
                       is_transaction_test(t.test) ? fmt::format("{:.2f}", t.messages.rtt.mean_us / 2) : "-",
                       t.local.cpu_util_pct(), t.remote.cpu_util_pct(), p.start_offset_us);
}

void write_human_summary(std::ostream& out, const RoundSummary& s) {
    out << fmt::format("round {}: {} pairs ({} failed), {} {} {} B", s.round, s.pairs, s.failed, workload_name(s.test),
                       transport_name(s.transport), s.message_size);
    if (!is_message_test(s.test)) {  // rr and msgrate: their rate, not Gb/s of tiny messages
        out << fmt::format(": {:.3f} Gb/s in all, per pair {:.3f}/{:.3f}/{:.3f}", s.gbps.sum, s.gbps.min, s.gbps.median,
                           s.gbps.max);
    } else {
        out << fmt::format(": {:.0f} {}/s in all, per pair {:.0f}/{:.0f}/{:.0f}", s.rate.sum,
                           is_transaction_test(s.test) ? "transactions" : "messages", s.rate.min, s.rate.median,
                           s.rate.max);
    }
    if (is_transaction_test(s.test) && s.latency_us.max > 0) {
        out << fmt::format("; latency_us per pair {:.2f}/{:.2f}/{:.2f}", s.latency_us.min, s.latency_us.median,
                           s.latency_us.max);
    }
    out << fmt::format(
        "\n  start skew {:.1f} us (barrier exits spread {:.1f} us); all pairs ran at once for {:.3f} s of the "
        "longest {:.3f} s interval; MPI barrier {:.3f} ms, gather {:.3f} ms\n\n",
        s.start_skew_us, s.barrier_spread_us, s.overlap_s, s.longest_interval_s, s.barrier_ms, s.gather_ms);
}

}  // namespace

nlohmann::json to_json(const PairRecord& p) {
    nlohmann::json j = {{kRound, p.round},
                        {"client_rank", p.client_rank},
                        {"server_rank", p.server_rank},
                        {"client_host", p.client_host},
                        {"server_host", p.server_host},
                        {"start_wall_s", p.start_wall_s},
                        {"start_offset_us", p.start_offset_us}};
    if (p.ok()) {
        j["result"] = to_json(p.result);
    } else {
        j["error"] = p.error;
    }
    return j;
}

nlohmann::json to_json(const RoundSummary& s) {
    nlohmann::json j = {{kRound, s.round},
                        {"test", workload_name(s.test)},
                        {"transport", transport_name(s.transport)},
                        {"message_size", s.message_size},
                        {"pairs", s.pairs},
                        {"failed", s.failed},
                        {"throughput_gbps", to_json(s.gbps)},
                        {"start_skew_us", s.start_skew_us},
                        {"barrier_spread_us", s.barrier_spread_us},
                        {"overlap_s", s.overlap_s},
                        {"longest_interval_s", s.longest_interval_s},
                        {"barrier_ms", s.barrier_ms},
                        {"gather_ms", s.gather_ms}};
    if (is_message_test(s.test))
        j[is_transaction_test(s.test) ? "transactions_per_s" : "messages_per_s"] = to_json(s.rate);
    if (is_transaction_test(s.test)) j["latency_us"] = to_json(s.latency_us);
    return j;
}

nlohmann::json to_json(const PairsReport& r) {
    nlohmann::json run = to_json(r.header);
    run["pattern"] = r.pattern;
    run["ranks"] = r.ranks;
    run["clock_note"] = r.clock_note;
    nlohmann::json pairs = nlohmann::json::array(), rounds = nlohmann::json::array();
    for (const auto& p : r.pairs) pairs.push_back(to_json(p));
    for (const auto& s : r.rounds) rounds.push_back(to_json(s));
    return {{"run", run}, {"pairs", pairs}, {"rounds", rounds}, {"errors", r.errors}};
}

void write_pairs_head(const std::string& format, std::ostream& out, const PairsReport& r) {
    Format f = format_of(format);
    if (f == Format::csv) {
        write_pairs_csv_head(out);
    } else if (f == Format::human) {
        write_human_head(out, r);
    }
    out.flush();
}

void write_pairs_round(const std::string& format, std::ostream& out, const PairsReport& r, int round) {
    Format f = format_of(format);
    if (f == Format::csv) {
        write_pairs_csv_round(out, r, round);
    } else if (f == Format::human) {
        for (const auto& p : r.pairs)
            if (p.round == round) write_human_pair(out, p);
        for (const auto& s : r.rounds)
            if (s.round == round) write_human_summary(out, s);
    }
    out.flush();
}

void write_pairs_tail(const std::string& format, std::ostream& out, const PairsReport& r) {
    Format f = format_of(format);
    if (f == Format::json) {
        out << to_json(r).dump(2) << "\n";
    } else {
        for (const auto& e : r.errors) out << (f == Format::csv ? "# error: " : "error: ") << e << "\n";
    }
    out.flush();
}

void write_pairs_report(const std::string& format, std::ostream& out, const PairsReport& r) {
    write_pairs_head(format, out, r);
    for (const auto& s : r.rounds) write_pairs_round(format, out, r, s.round);
    write_pairs_tail(format, out, r);
}

}  // namespace zc
