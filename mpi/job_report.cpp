#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>

#include "job_state.hpp"
#include "run_driver.hpp"

namespace zc::mpi {

namespace {
// What --report-file says of itself until the job's end is written.
constexpr const char* kUnfinished =
    "the job had not ended when this file was written: the rounds in it are complete, any later ones are missing "
    "(if the job was killed, the launcher's message names the rank that ended first)";
}  // namespace

void Job::add_round_to_report(const TestSpec& base, int round_index, const Round& round,
                              const std::vector<nlohmann::json>& got, double all_received) {
    std::vector<double> enters, exits, done;
    for (const auto& g : got) {
        if (g.is_null()) continue;
        enters.push_back(g.at("barrier_enter_s").get<double>());
        exits.push_back(g.at("barrier_exit_s").get<double>());
        done.push_back(g.at("done_s").get<double>());
    }
    size_t first = report_.pairs.size();
    for (const Pair& p : round) {
        PairRecord rec;
        rec.round = round_index;
        rec.client_rank = p.client;
        rec.server_rank = p.server;
        rec.client_host = ranks_[static_cast<size_t>(p.client)].host;
        rec.server_host = ranks_[static_cast<size_t>(p.server)].host;
        const nlohmann::json& from = got[static_cast<size_t>(p.client)];
        const nlohmann::json* pj = nullptr;
        if (!from.is_null())
            for (const auto& x : from.at("pairs"))
                if (x.at("server") == p.server) pj = &x;
        try {
            if (!pj) {
                throw std::runtime_error(fmt::format("client rank {} sent no result (it died or stalled)", p.client));
            }
            if (auto error = pj->find("error"); error != pj->end()) throw std::runtime_error(error->get<std::string>());
            rec.start_wall_s = pj->at("start_wall_s");
            rec.result = merge_sides(pair_spec(base, ranks_[static_cast<size_t>(p.server)]),
                                     side_result_from_json(pj->at("local")), side_result_from_json(pj->at("remote")),
                                     pj->at("same_host"));
            rec.result.setup_ms = pj->at("setup_ms");
            if (auto load = pj->find("under_load"); load != pj->end())
                rec.result.under_load = load_beside_from_json(*load);
        } catch (const std::exception& e) {
            rec.error = e.what();
            any_failed_ = true;
        }
        report_.pairs.push_back(std::move(rec));
    }
    double earliest = 0;
    for (size_t i = first; i < report_.pairs.size(); ++i)
        if (report_.pairs[i].ok() && (earliest == 0 || report_.pairs[i].start_wall_s < earliest))
            earliest = report_.pairs[i].start_wall_s;
    for (size_t i = first; i < report_.pairs.size(); ++i)
        if (report_.pairs[i].ok()) report_.pairs[i].start_offset_us = (report_.pairs[i].start_wall_s - earliest) * 1e6;
    std::vector<PairRecord> these(report_.pairs.begin() + static_cast<std::ptrdiff_t>(first), report_.pairs.end());
    RoundSummary s = summarize_round(round_index, these);
    if (s.pairs == s.failed) {  // nothing ran: still say what was asked
        s.test = base.test;
        s.transport = base.transport;
        s.message_size = base.message_size;
    }
    Spread in = spread_of(enters), out = spread_of(exits), d = spread_of(done);
    s.barrier_spread_us = (out.max - out.min) * 1e6;
    s.barrier_ms = (out.max - in.max) * 1e3;     // from the last rank's arrival to the last exit
    s.gather_ms = (all_received - d.max) * 1e3;  // from the last rank's results being ready to rank 0 holding all
    report_.rounds.push_back(s);
}

void Job::write_head() {
    report_.header.software = "zcperf-mpi " ZCPERF_VERSION;
    report_.header.command_line = opt_.command_line;
    report_.header.local_host = me_.host;
    report_.pattern = pattern_name(mopt_.pattern);
    report_.ranks = size_;
    std::set<std::string> hosts;
    for (const auto& r : ranks_) hosts.insert(r.host);
    report_.clock_note =
        hosts.size() == 1
            ? "one host: every start time is read from the same CLOCK_REALTIME, so the skew is exact"
            : fmt::format(
                  "{} hosts: start times come from each host's own CLOCK_REALTIME, so the skew includes the "
                  "hosts' clock offsets (NTP keeps them within about a millisecond, PTP within microseconds)",
                  hosts.size());
    std::lock_guard lock(report_m_);
    if (!save_report_file())
        abort_job(rank_, fmt::format("--report-file {}: cannot write it ({}): give a path in a writable directory",
                                     mopt_.report_file, std::strerror(errno)));
    write_pairs_head(opt_.output, std::cout, report_);
}

bool Job::save_report_file() {
    if (mopt_.report_file.empty()) return true;
    const std::string tmp = mopt_.report_file + ".tmp";
    // Until the tail, the file says that it is a report of a job still running: if the job is killed,
    // that is what it was (the launcher's SIGTERM may come too late for rank 0 to say more: under load
    // its 1 s before SIGKILL was not always enough to rewrite the file).
    if (!tail_written_) report_.errors.push_back(kUnfinished);
    bool ok = false;
    {
        std::ofstream f(tmp, std::ios::trunc);
        if (f) {
            write_pairs_report(opt_.output, f, report_);
            ok = static_cast<bool>(f.flush());
        }
    }
    if (!tail_written_) report_.errors.pop_back();
    return ok && std::rename(tmp.c_str(), mopt_.report_file.c_str()) == 0;
}

void Job::write_tail(const std::string& ended_by) {
    std::lock_guard lock(report_m_);
    if (tail_written_) return;
    if (!ended_by.empty()) {
        report_.errors.push_back(fmt::format(
            "rank 0: {}: the job was ended from outside (a rank died, or the launcher's time limit); the rounds "
            "above are complete, the round in progress has no result (the launcher names the rank that ended "
            "first)",
            ended_by));
    }
    tail_written_ = true;
    // The file first: once the launcher stops reading the ranks' output, writing to it can block until SIGKILL.
    if (!save_report_file())
        std::cerr << "zcperf-mpi: rank 0: --report-file " << mopt_.report_file << ": " << std::strerror(errno)
                  << std::endl;
    write_pairs_tail(opt_.output, std::cout, report_);
}

}  // namespace zc::mpi
