#pragma once
// One rank's job, shared by its two halves: the orchestration (job.cpp: the server thread, the
// rendezvous, the rounds and their barriers) and rank 0's report (job_report.cpp: head, rounds, tail,
// --report-file).
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "job_options.hpp"
#include "pattern.hpp"
#include "report/pairs_report.hpp"
#include "security/shared_secret.hpp"
#include "server.hpp"
#include "tcp/tcp_socket.hpp"
#include "watchdog.hpp"

namespace zc::mpi {

// Pairs of one round end a little apart (set-up, teardown): rank 0 waits this much beyond -l and --mpi-timeout.
constexpr double kGatherMargin_s = 5;

// What each rank tells the others at the rendezvous.
struct RankInfo {
    int rank = 0;
    std::string host, address;
    uint16_t port = 0;  // 0: its server did not start (server_error says why)
    int local_rank = 0;
    int gpus = 0;  // counted only when the job asks for GPU memory (0 otherwise)
    std::vector<int> cpus;
    std::string server_error;
};

class Job {
public:
    Job(int rank, int size, ClientOptions opt, MpiOptions mopt, Watchdog& dog)
        : rank_(rank), size_(size), opt_(std::move(opt)), mopt_(std::move(mopt)), dog_(dog) {}
    ~Job() { dog_.on_signal({}); }
    int run();

private:
    // Does any pair's side want pinned or GPU memory? Only then do the ranks start the GPU driver.
    bool uses_gpus() const { return opt_.local.buffer.needs_cuda() || opt_.remote.buffer.needs_cuda(); }
    void start_server();
    void rendezvous();
    // One round of one test: returns false when a rank is missing (the job must end).
    bool run_round(const TestSpec& base, size_t spec_index, int round_index, const Round& round, int tag);
    bool gather(const std::string& payload, int tag, Clock::time_point deadline, std::vector<nlohmann::json>& got);
    void add_round_to_report(const TestSpec& base, int round_index, const Round& round,
                             const std::vector<nlohmann::json>& got, double all_received);
    TestSpec pair_spec(const TestSpec& base, const RankInfo& server) const;
    // How long rank 0 waits for a round's results after its own. The default --mpi-timeout (60 s) covers
    // a stalled pair's own bound (run_test's 30 s), so the pair is reported with its reason; a shorter
    // one names the stalled pair's client rank as missing instead, sooner.
    double gather_bound(const TestSpec& base) const { return base.duration_s + kGatherMargin_s + mopt_.timeout_s; }
    Endpoint endpoint_of(const RankInfo& server) const;
    // Rank 0's report, streamed: the head after the rendezvous, each round as it is gathered, the tail
    // (errors; JSON: the whole document) at the end, or on the launcher's signal with what it has.
    void write_head();
    void write_tail(const std::string& ended_by);
    // --report-file: the whole report so far, replaced atomically (rename), so the file is a complete
    // report up to the last finished round even when the job is killed (a pipe through the launcher
    // loses what it had not forwarded). Under report_m_.
    bool save_report_file();

    int rank_, size_;
    ClientOptions opt_;
    MpiOptions mopt_;
    Watchdog& dog_;
    std::optional<SharedSecret> secret_;
    RankInfo me_;
    std::vector<RankInfo> ranks_;
    std::unique_ptr<Server> server_;
    std::thread server_thread_;
    std::mutex report_m_;  // the report and stdout: the main thread's rounds, the Watchdog's signal
    PairsReport report_;
    bool tail_written_ = false;
    std::vector<Round> rounds_;
    bool any_failed_ = false;
};

}  // namespace zc::mpi
