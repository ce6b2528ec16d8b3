#include "job.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "cli.hpp"
#include "control_client.hpp"
#include "cuda/device.hpp"
#include "gpu_checks.hpp"
#include "pattern.hpp"
#include "placement.hpp"
#include "report/pairs_report.hpp"
#include "server.hpp"
#include "test_driver.hpp"

namespace zc::mpi {

namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// The set-up of one pair (control connection, both sides' data connections and threads) before the
// round's barrier; a pair not ready by then is reported failed and the others start without it.
constexpr double kSetupBound_s = 30;
// run_test's own bound on a stalled pair (test_driver.cpp's kResultGrace) plus a margin.
constexpr double kPairGrace_s = 40;
// What --report-file says of itself until the job's end is written.
constexpr const char* kUnfinished =
    "the job had not ended when this file was written: the rounds in it are complete, any later ones are missing "
    "(if the job was killed, the launcher's message names the rank that ended first)";
// Pairs of one round end a little apart (set-up, teardown): rank 0 waits this much beyond -l and --mpi-timeout.
constexpr double kGatherMargin_s = 5;

constexpr const char* kDescription =
    "zcperf-mpi " ZCPERF_VERSION
    ": many zcperf pairs at once, launched by mpirun or srun.\n"
    "Every rank runs zcserver's code on its own port; the ranks meet through MPI, and the client rank of each "
    "pair\ndrives zcperf's test (any transport, --cpu, --mem-node, --irq-cpus, --buffer) against its server rank. "
    "The pairs\nof a round start behind one barrier; the report has every pair and each round's aggregate.\n"
    "LOCAL in the options below is the pair's client rank, REMOTE its server rank.\n";

constexpr const char* kExamples = R"(
Examples:
  mpirun -np 4 zcperf-mpi -l 5                    ranks 0,1 send to 2,3 at once (--pattern pairs)
  mpirun -np 8 zcperf-mpi --pattern incast -l 5   7 ranks stream into rank 0
  mpirun -np 4 zcperf-mpi --pattern matrix -t stream,rr -l 2 -o json > m.json
                                                  every ordered pair, disjoint pairs at once;
                                                  scripts/mpi_heatmap.py m.json draws the N x N map
  srun -N 2 -n 4 --mpi=pmix zcperf-mpi --rank-cpus 0-1,2-3 -l 5
                                                  local rank 0 on CPUs 0-1, local rank 1 on 2-3
  srun -N 1 -n 2 --mpi=pmix zcperf-mpi --buffer cuda:local:2,cuda:local:2 -t rr
                                                  two tasks on one GPU (cuda:local: one GPU per task)
When a rank dies, plain mpirun ends every rank (SIGTERM, then SIGKILL 1 s later): rank 0 has printed each
round as it ended (human, CSV) and --report-file FILE holds every finished round (any -o), the dead rank's
partner names the pair on stderr. With 'mpirun --enable-recovery' (or OMPI_MCA_orte_enable_recovery=1)
the others carry on, and zcperf-mpi names the dead rank's pairs and reports the others within --mpi-timeout.
Across hosts without ssh (the two-guest lab): mpirun --mca plm_rsh_agent scripts/lab/mpi_agent.sh (docs/lab.md).
As root, Open MPI wants --allow-run-as-root; more ranks than cores need --oversubscribe.
Exit status: 0 every pair ran, 1 a pair or a rank failed (named in the report), 2 bad usage.
)";

struct MpiOptions {
    Pattern pattern = Pattern::pairs;
    bool one_at_a_time = false;
    std::vector<std::vector<int>> rank_cpus;
    std::string iface;
    double timeout_s = 60;
    std::string report_file;        // rank 0 rewrites it after every round: complete whenever the job ends
    std::vector<int> refuse_ranks;  // fault injection for the tests: these ranks' servers refuse every test
};

double wall_now() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string hostname() {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    return name;
}

// The IPv4 address of `iface`, or with "" the first one up that is not loopback ("" when none).
std::string ipv4_address(const std::string& iface) {
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return "";
    std::string found;
    for (ifaddrs* a = list; a && found.empty(); a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP)) continue;
        if (iface.empty() ? (a->ifa_flags & IFF_LOOPBACK) != 0 : iface != a->ifa_name) continue;
        char text[INET_ADDRSTRLEN] = {};
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof(text));
        found = text;
    }
    freeifaddrs(list);
    return found;
}

// Rank 0's word to the others that it has ended the job (a rank missing, the report written): under
// mpirun --enable-recovery its MPI_Abort does not end them, and they would wait out their barrier.
constexpr int kEndTag = 32000;  // MPI guarantees tags up to 32767; the rounds' tags stay far below

// Polls a non-blocking MPI operation until it completes or `deadline`: no rank ever sits in MPI
// without a bound. False on the deadline (the request is left pending: the job is ended then).
// watch_end: a rank other than 0 also leaves (exit status 1) when rank 0 says the job is over.
bool wait_request(MPI_Request& req, Clock::time_point deadline, bool watch_end = false) {
    int done = 0;
    auto pause = std::chrono::microseconds(50);
    while (true) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        int ended = 0;
        if (watch_end) MPI_Iprobe(0, kEndTag, MPI_COMM_WORLD, &ended, MPI_STATUS_IGNORE);
        if (ended) {
            std::cerr << "zcperf-mpi: rank 0 ended the job (a rank is missing: its report names it)" << std::endl;
            _exit(1);
        }
        if (Clock::now() > deadline) return false;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(500));
    }
}

Clock::time_point after(double seconds) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(Seconds(seconds));
}

[[noreturn]] void abort_job(int rank, const std::string& why) {
    std::cerr << "zcperf-mpi: rank " << rank << ": " << why << "; ending the job (MPI_Abort)" << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

// What each rank tells the others at the rendezvous.
struct RankInfo {
    int rank = 0;
    std::string host, address;
    uint16_t port = 0;  // 0: its server did not start (server_error says why)
    int local_rank = 0;
    int gpus = 0;
    std::vector<int> cpus;
    std::string server_error;
};

nlohmann::json to_json(const RankInfo& r) {
    return {{"rank", r.rank},
            {"host", r.host},
            {"address", r.address},
            {"port", r.port},
            {"local_rank", r.local_rank},
            {"gpus", r.gpus},
            {"cpus", r.cpus},
            {"server_error", r.server_error}};
}

RankInfo rank_info_from_json(const nlohmann::json& j) {
    RankInfo r;
    r.rank = j.at("rank");
    r.host = j.at("host");
    r.address = j.at("address");
    r.port = j.at("port");
    r.local_rank = j.at("local_rank");
    r.gpus = j.at("gpus");
    r.cpus = j.at("cpus").get<std::vector<int>>();
    r.server_error = j.at("server_error");
    return r;
}

// The pairs of one rank wait here, ready, until the round's barrier has been passed by every rank.
class StartGate {
public:
    explicit StartGate(size_t expected) : expected_(expected) {}
    // A pair's thread, both sides ready: returns when the round starts; throws when it will not.
    void arrive_and_wait(Clock::time_point deadline) {
        std::unique_lock lock(m_);
        if (state_ != State::waiting) throw std::runtime_error(state_ == State::canceled ? why_ : kLate);
        ++arrived_;
        cv_.notify_all();
        if (!cv_.wait_until(lock, deadline, [&] { return state_ != State::waiting; }))
            throw std::runtime_error("no start from the round's barrier in time");
        if (state_ == State::canceled) throw std::runtime_error(why_);
    }
    void fail() {  // a pair that will not arrive
        std::lock_guard lock(m_);
        ++failed_;
        cv_.notify_all();
    }
    void wait_arrivals(Clock::time_point deadline) {
        std::unique_lock lock(m_);
        cv_.wait_until(lock, deadline, [&] { return arrived_ + failed_ >= expected_; });
    }
    void release() { set(State::released, ""); }
    void cancel(const std::string& why) { set(State::canceled, why); }

private:
    static constexpr const char* kLate =
        "its set-up took longer than the round allows (30 s): the round started "
        "without it";
    enum class State { waiting, released, canceled };
    void set(State s, const std::string& why) {
        std::lock_guard lock(m_);
        state_ = s;
        why_ = why;
        cv_.notify_all();
    }
    std::mutex m_;
    std::condition_variable cv_;
    size_t expected_, arrived_ = 0, failed_ = 0;
    State state_ = State::waiting;
    std::string why_;
};

// The signals a launcher ends a job with: Open MPI's mpirun sends SIGTERM to every rank as soon as one
// rank dies (then SIGKILL odls_base_sigkill_timeout, 1 s, later), Slurm after KillWait (30 s). Blocked
// in every thread (before MPI_Init, so its threads inherit the mask) and taken by the Watchdog's thread.
sigset_t launcher_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    return set;
}

// The last resort: a rank still running past the whole job's bound (something outside the bounded
// waits hung: a launcher, MPI_Finalize) says where it was and ends the job with MPI_Abort. It also
// takes the launcher's SIGTERM: the rank says where it was (its pairs of the round) before it goes,
// and rank 0 writes what it has (on_signal).
class Watchdog {
public:
    Watchdog(int rank, double seconds) : rank_(rank), deadline_(after(seconds)), thread_([this] { watch(); }) {}
    ~Watchdog() {
        {
            std::lock_guard lock(m_);
            done_ = true;
        }
        thread_.join();
    }
    void phase(const std::string& what) {
        std::lock_guard lock(m_);
        phase_ = what;
    }
    void phase(const std::string& what, double seconds) {  // with a bound of its own, from now
        std::lock_guard lock(m_);
        phase_ = what;
        deadline_ = after(seconds);
    }
    // Called on the launcher's signal, before the rank exits; an empty function removes it.
    void on_signal(std::function<void(const std::string& why)> hook) {
        std::lock_guard lock(hook_m_);
        hook_ = std::move(hook);
    }

private:
    void watch() {
        const sigset_t set = launcher_signals();
        const timespec tick{0, 200'000'000};
        while (true) {
            int sig = sigtimedwait(&set, nullptr, &tick);
            std::unique_lock lock(m_);
            if (done_) return;
            if (sig > 0) {
                std::string why = fmt::format("the launcher sent {} while this rank was in {}",
                                              sig == SIGTERM ? "SIGTERM" : "SIGINT", phase_);
                lock.unlock();
                std::cerr << "zcperf-mpi: rank " << rank_ << ": " << why << "; exiting" << std::endl;
                {
                    std::lock_guard hook_lock(hook_m_);
                    if (hook_) hook_(why);
                }
                _exit(128 + sig);
            }
            if (Clock::now() < deadline_) continue;
            std::cerr << "zcperf-mpi: rank " << rank_ << ": watchdog: still in " << phase_
                      << " past the job's bound; ending the job (MPI_Abort)" << std::endl;
            MPI_Abort(MPI_COMM_WORLD, 3);  // MPI_THREAD_MULTIPLE was asked for this call
            _exit(3);
        }
    }
    int rank_;
    Clock::time_point deadline_;
    std::mutex m_, hook_m_;
    bool done_ = false;
    std::string phase_ = "start-up";
    std::function<void(const std::string&)> hook_;
    std::thread thread_;
};

// One pair this rank drives, and what came of it.
struct LocalPair {
    Pair pair;
    TestSpec spec;
    Endpoint server;
    std::string error;
    nlohmann::json local, remote;
    double setup_ms = 0;
    bool same_host = false;
    double start_wall_s = 0;
};

void run_pair(LocalPair& lp, StartGate& gate, const ClientOptions& opt, const SharedSecret* key,
              Clock::time_point start_deadline) {
    bool arrived = false;
    try {
        std::ostringstream note;
        auto control = connect_control(lp.server, std::chrono::milliseconds(opt.connect_timeout_ms), key, note);
        if (auto problem = remote_memory_problem(control->welcome().host, lp.spec.remote.buffer); !problem.empty())
            throw std::runtime_error(problem);
        double waited_s = 0;
        RunHooks hooks;
        hooks.before_start = [&] {
            arrived = true;
            double t = wall_now();
            gate.arrive_and_wait(start_deadline);
            lp.start_wall_s = wall_now();
            waited_s = lp.start_wall_s - t;
        };
        TestResult r = run_test(*control, lp.spec, hooks);
        lp.same_host = control->same_host();
        lp.local = to_json(r.local);
        lp.remote = to_json(r.remote);
        lp.setup_ms = r.setup_ms - waited_s * 1e3;  // the set-up's own time, not the wait for the other ranks
    } catch (const ServerError& e) {
        lp.error = fmt::format("server rank {} refused: {}", lp.pair.server, e.what());
    } catch (const std::exception& e) {
        lp.error = fmt::format("rank {} -> rank {} ({}:{}): {}", lp.pair.client, lp.pair.server, lp.server.host,
                               lp.server.port, e.what());
    }
    // Said now, on stderr: when a rank died, the launcher may end this rank before rank 0's report.
    if (!lp.error.empty())
        std::cerr << fmt::format("zcperf-mpi: rank {}: pair {} -> {} failed: {}", lp.pair.client, lp.pair.client,
                                 lp.pair.server, lp.error)
                  << std::endl;
    if (!arrived) gate.fail();
}

nlohmann::json to_json(const LocalPair& lp) {
    nlohmann::json j = {{"client", lp.pair.client}, {"server", lp.pair.server}, {"start_wall_s", lp.start_wall_s}};
    if (!lp.error.empty()) {
        j["error"] = lp.error;
    } else {
        j["local"] = lp.local;
        j["remote"] = lp.remote;
        j["setup_ms"] = lp.setup_ms;
        j["same_host"] = lp.same_host;
    }
    return j;
}

class Job {
public:
    Job(int rank, int size, ClientOptions opt, MpiOptions mopt, Watchdog& dog)
        : rank_(rank), size_(size), opt_(std::move(opt)), mopt_(std::move(mopt)), dog_(dog) {}
    ~Job() { dog_.on_signal({}); }
    int run();

private:
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

void Job::start_server() {
    me_.rank = rank_;
    me_.host = hostname();
    me_.address = ipv4_address(mopt_.iface);
    if (me_.address.empty()) me_.address = mopt_.iface.empty() ? "127.0.0.1" : "";
    try {
        if (me_.address.empty())
            throw std::runtime_error("--iface " + mopt_.iface + " has no IPv4 address on " + me_.host);
        ServerOptions so;
        so.bind = mopt_.iface.empty() ? "" : me_.address;
        so.port = 0;
        so.verbose = false;
        so.handle_signals = false;
        so.max_sessions = size_ + 4;  // incast: every other rank at once, all from one address on one host
        so.startups.start = so.startups.full = so.startups.per_source = std::max(so.startups.full, size_ + 16);
        so.allow_irq_affinity = true;  // the user running the job is its servers' operator
        so.secret = secret_;
        if (std::find(mopt_.refuse_ranks.begin(), mopt_.refuse_ranks.end(), rank_) != mopt_.refuse_ranks.end())
            so.max_duration_s = 0.001;  // a real refusal from zcserver's own check
        server_ = std::make_unique<Server>(so);
        me_.port = server_->port();
        server_thread_ = std::thread([this] { server_->run(); });
    } catch (const std::exception& e) {
        me_.server_error = e.what();
    }
}

void Job::rendezvous() {
    constexpr size_t kSlot = 4096;
    std::string mine = to_json(me_).dump();
    if (mine.size() >= kSlot) abort_job(rank_, "its rendezvous record is longer than 4 KiB (too many --rank-cpus?)");
    std::vector<char> send(kSlot, 0), all(kSlot * static_cast<size_t>(size_), 0);
    std::copy(mine.begin(), mine.end(), send.begin());
    MPI_Request req;
    MPI_Iallgather(send.data(), kSlot, MPI_CHAR, all.data(), kSlot, MPI_CHAR, MPI_COMM_WORLD, &req);
    if (!wait_request(req, after(mopt_.timeout_s)))
        abort_job(rank_, fmt::format("the rendezvous (HOST:PORT of every rank) did not complete in {:g} s: a rank "
                                     "did not start",
                                     mopt_.timeout_s));
    for (int r = 0; r < size_; ++r)
        ranks_.push_back(rank_info_from_json(nlohmann::json::parse(std::string(&all[kSlot * static_cast<size_t>(r)]))));
}

Endpoint Job::endpoint_of(const RankInfo& server) const {
    // Ranks of one host meet on loopback unless --iface names the network to test.
    if (mopt_.iface.empty() && server.host == me_.host) return {"127.0.0.1", server.port};
    return {server.address, server.port};
}

TestSpec Job::pair_spec(const TestSpec& base, const RankInfo& server) const {
    TestSpec s = base;
    if (!mopt_.rank_cpus.empty()) {
        s.local.cpus = me_.cpus;
        s.remote.cpus = server.cpus;
    }
    s.local.buffer = resolve_local_rank(base.local.buffer, me_.local_rank, me_.gpus);
    s.remote.buffer = resolve_local_rank(base.remote.buffer, server.local_rank, server.gpus);
    return s;
}

bool Job::gather(const std::string& payload, int tag, Clock::time_point deadline, std::vector<nlohmann::json>& got) {
    if (rank_ != 0) {
        MPI_Request req;
        MPI_Isend(payload.data(), static_cast<int>(payload.size()), MPI_CHAR, 0, tag, MPI_COMM_WORLD, &req);
        return wait_request(req, deadline);
    }
    got.assign(static_cast<size_t>(size_), nullptr);
    got[0] = nlohmann::json::parse(payload);
    int missing = size_ - 1;
    auto pause = std::chrono::microseconds(50);
    while (missing > 0) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int count = 0;
            MPI_Get_count(&st, MPI_CHAR, &count);
            std::string text(static_cast<size_t>(count), '\0');
            MPI_Recv(text.data(), count, MPI_CHAR, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            got[static_cast<size_t>(st.MPI_SOURCE)] = nlohmann::json::parse(text);
            --missing;
            pause = std::chrono::microseconds(50);
            continue;
        }
        if (Clock::now() > deadline) return false;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(500));
    }
    return true;
}

bool Job::run_round(const TestSpec& base, size_t spec_index, int round_index, const Round& round, int tag) {
    std::string roles;
    for (const Pair& p : round)
        if (p.client == rank_ || p.server == rank_)
            roles += fmt::format("{}{} -> {} ({})", roles.empty() ? "" : ", ", p.client, p.server,
                                 p.client == rank_ ? "its client" : "its server");
    dog_.phase(
        fmt::format("round {} ({}), pairs {}", round_index, test_name(base.test), roles.empty() ? "none" : roles));
    std::vector<LocalPair> mine;
    for (const Pair& p : round) {
        if (p.client != rank_) continue;
        LocalPair lp;
        lp.pair = p;
        const RankInfo& server = ranks_[static_cast<size_t>(p.server)];
        lp.server = endpoint_of(server);
        try {
            lp.spec = pair_spec(base, server);
            if (server.port == 0)
                lp.error = fmt::format("server rank {} did not start: {}", p.server, server.server_error);
        } catch (const std::exception& e) {
            lp.error = fmt::format("rank {} -> rank {}: {}", p.client, p.server, e.what());
        }
        mine.push_back(std::move(lp));
    }
    size_t to_run = 0;
    for (const auto& lp : mine) to_run += lp.error.empty();
    StartGate gate(to_run);
    auto setup_deadline = after(kSetupBound_s + opt_.connect_timeout_ms / 1000.0);
    auto start_deadline = after(kSetupBound_s + opt_.connect_timeout_ms / 1000.0 + mopt_.timeout_s);
    const SharedSecret* key = secret_ ? &*secret_ : nullptr;
    std::vector<std::thread> threads;
    for (auto& lp : mine) {
        if (lp.error.empty()) threads.emplace_back([&, key] { run_pair(lp, gate, opt_, key, start_deadline); });
    }
    gate.wait_arrivals(setup_deadline);

    // Every rank's set-up is bounded, so the barrier waits at most that long for a live rank.
    double t_barrier = wall_now();
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    // A rank may arrive late by its set-up, or by rank 0's wait for the previous round's results.
    double barrier_bound = kSetupBound_s + opt_.connect_timeout_ms / 1000.0 + gather_bound(base) + mopt_.timeout_s;
    bool all_here = wait_request(req, after(barrier_bound), true);
    double barrier_exit = wall_now();
    if (all_here) {
        gate.release();
    } else {
        gate.cancel(
            fmt::format("the round's start barrier: not every rank arrived within {:.0f} s (a rank died or "
                        "stalled)",
                        barrier_bound));
    }
    for (auto& t : threads) t.join();  // each bounded by run_test's own deadlines

    nlohmann::json payload = {{"rank", rank_},
                              {"barrier_enter_s", t_barrier},
                              {"barrier_exit_s", barrier_exit},
                              {"pairs", nlohmann::json::array()}};
    for (const auto& lp : mine) payload["pairs"].push_back(to_json(lp));
    payload["done_s"] = wall_now();
    if (!all_here) {
        // The collective cannot complete: say what this rank has, then end the job.
        std::cerr << "zcperf-mpi: rank " << rank_ << ": round " << round_index << " results: " << payload.dump()
                  << "\n";
        abort_job(rank_, "the start barrier of round " + std::to_string(round_index) + " failed");
    }
    // Every live rank gets here within its pairs' bounds after the barrier.
    auto gather_deadline = after(gather_bound(base));
    std::vector<nlohmann::json> got;
    bool complete = gather(payload.dump(), tag, gather_deadline, got);
    if (rank_ == 0) {
        (void)spec_index;
        std::lock_guard lock(report_m_);
        add_round_to_report(base, round_index, round, got, wall_now());
        if (!complete) {
            std::string who;
            for (int r = 1; r < size_; ++r)
                if (got[static_cast<size_t>(r)].is_null()) who += (who.empty() ? "" : ", ") + std::to_string(r);
            report_.errors.push_back(
                fmt::format("round {}: rank(s) {} sent no result within {:.0f} s of the start "
                            "(died or stalled): their pairs are named above",
                            round_index, who, gather_bound(base)));
        }
        write_pairs_round(opt_.output, std::cout, report_, round_index);
        save_report_file();
    }
    if (!complete && rank_ != 0) abort_job(rank_, "rank 0 took no result from it in time (rank 0 died or stalled)");
    return complete;
}

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
            if (pj->contains("error")) throw std::runtime_error(pj->at("error").get<std::string>());
            rec.start_wall_s = pj->at("start_wall_s");
            rec.result = merge_sides(pair_spec(base, ranks_[static_cast<size_t>(p.server)]),
                                     side_result_from_json(pj->at("local")), side_result_from_json(pj->at("remote")),
                                     pj->at("same_host"));
            rec.result.setup_ms = pj->at("setup_ms");
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

int Job::run() {
    if (!opt_.auth_key_file.empty()) secret_ = SharedSecret::from_file(opt_.auth_key_file);
    try {
        me_.local_rank = local_rank_from_env([](const char* name) { return std::getenv(name); });
    } catch (const std::exception& e) {
        std::cerr << "zcperf-mpi: rank " << rank_ << ": " << e.what() << "\n";
        me_.local_rank = -1;
    }
    if (me_.local_rank < 0) {  // no launcher variable: the rank's index among the ranks sharing its memory
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &me_.local_rank);
        MPI_Comm_free(&node);
    }
    me_.gpus = static_cast<int>(cuda::devices().size());
    me_.cpus = cpus_for_local_rank(mopt_.rank_cpus, me_.local_rank);
    start_server();
    rendezvous();
    rounds_ = schedule(mopt_.pattern, size_, mopt_.one_at_a_time);
    if (rank_ == 0) {
        write_head();
        dog_.on_signal([this](const std::string& why) { write_tail(why); });
    }

    bool complete = true;
    int round_index = 0, tag = 0;
    auto specs = expand_tests(opt_);
    for (size_t si = 0; si < specs.size() && complete; ++si) {
        for (const Round& round : rounds_) {
            complete = run_round(specs[si], si, round_index++, round, tag++);
            if (!complete) break;
        }
    }
    if (rank_ == 0) write_tail("");
    if (!complete) {
        if (rank_ == 0) {  // the live ranks wait at a barrier: tell them, briefly, then end the job
            std::vector<MPI_Request> notes(static_cast<size_t>(size_ - 1));
            for (int r = 1; r < size_; ++r)
                MPI_Isend(nullptr, 0, MPI_CHAR, r, kEndTag, MPI_COMM_WORLD, &notes[static_cast<size_t>(r - 1)]);
            auto until = after(1);
            for (auto& n : notes) wait_request(n, until);
        }
        abort_job(rank_, "a rank is missing (named in the report)");
    }

    dog_.phase("the final barrier");
    // The servers serve until every client is done.
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    // Rank 0 may still be waiting for the last round's results (then it reports and ends the job): for its
    // own pairs (-l and their grace), then for the others' (gather_bound). A shorter wait here let a rank
    // with no pair of its own end the job before rank 0 had named a stalled pair.
    const TestSpec& last = specs.back();
    if (!wait_request(req, after(last.duration_s + kPairGrace_s + gather_bound(last) + mopt_.timeout_s), true))
        abort_job(rank_, "the final barrier did not complete");
    if (server_) {
        boost::asio::post(server_->io(), [this] { server_->stop(); });
        server_thread_.join();
    }
    return any_failed_ ? 1 : 0;  // rank 0's word; the launcher passes on a non-zero status
}

// Options zcperf-mpi adds to zcperf's (which it takes as they are), one row each, and the zcperf options
// it refuses.
CliProgram mpi_program(MpiOptions& m) {
    CliProgram p;
    p.name = "zcperf-mpi";
    p.description = kDescription;
    p.examples = kExamples;
    p.per_rank = true;
    p.rows = {
        text("--pattern",
             "which ranks test which: pairs (rank i with i+N/2, all at once), incast (every rank to rank 0 at "
             "once), fanout (rank 0 to every rank at once), matrix (every ordered pair, in rounds of disjoint pairs)",
             [&m](const std::string& t) { m.pattern = pattern_from_name(t); })
            .choose(enum_names(Pattern::matrix, pattern_name))
            .shows(pattern_name(m.pattern)),
        flag("--one-pair-at-a-time", m.one_at_a_time,
             "matrix: one pair per round (N(N-1) rounds, as mpiGraph's serial mode), so no pair shares the network "
             "or the host with another"),
        text("--rank-cpus",
             "CPUs of each local rank's data threads (as client and as server), by the launcher's local rank "
             "(OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID): 0+1,2+3 = local rank 0 on CPUs 0-1, 1 on 2-3, then "
             "round again; replaces --cpu",
             [&m](const std::string& t) { m.rank_cpus = parse_rank_cpus(t); }),
        value("--iface", m.iface,
              "network interface whose IPv4 address every rank's server listens on and is reached at (e.g. ib0); "
              "default: all addresses, ranks of one host meeting on loopback"),
        value_in("--mpi-timeout", m.timeout_s, Bounds<double>{1, 86400},
                 "seconds a rank waits at a barrier, or rank 0 for a round's results, beyond -l before it names the "
                 "missing ranks and ends the job; under 35 a stalled pair's client rank is named missing rather "
                 "than the pair failed with its reason"),
        value("--report-file", m.report_file,
              "rank 0 also writes the report (in -o's format) to FILE, replaced after every round, so it is "
              "complete up to the last finished round however the job ends (mpirun ends the whole job when one "
              "rank dies, and may drop the end of what the ranks printed)")
            .value_kind("FILE"),
        value("--fault-refuse-rank", m.refuse_ranks,
              "testing: these ranks' servers refuse every test (zcserver's own --max-duration check)")
            .hide(),
    };
    p.check = [&m](const ClientOptions& o) {
        if (!o.servers.empty())
            throw std::invalid_argument("-H: zcperf-mpi's servers are its own ranks; choose them with --pattern");
        if (o.topology || o.gpu_copy_bandwidth)
            throw std::invalid_argument("--topology and --gpu-copy-bandwidth are zcperf's: run them with zcperf");
        if (o.params.total_bytes)
            throw std::invalid_argument("-n: zcperf-mpi's pairs run for a time (-l), so every round ends in bounds");
        if (o.goal.max_iterations > 1)
            throw std::invalid_argument("-i/-I: zcperf-mpi runs each round once; repeat the job for more samples");
        if (o.params.irq_wait_s > 0 || o.params.server_wait_s > 0)  // issue 26
            throw std::invalid_argument(
                "--irq-wait/--server-wait: the pairs of a round start together, so a pair cannot wait for another "
                "pair's IRQs; one that finds them held is refused, naming the holder. Give the pairs of one host "
                "NICs of their own, or run one pair per host with --irq-cpus");
        if (m.one_at_a_time && m.pattern != Pattern::matrix)
            throw std::invalid_argument("--one-pair-at-a-time is for --pattern matrix");
        if (!m.rank_cpus.empty() && (!o.local.cpus.empty() || !o.remote.cpus.empty()))
            throw std::invalid_argument("--rank-cpus replaces --cpu: give one of them");
    };
    return p;
}

}  // namespace

int run_job(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    const sigset_t ended = launcher_signals();
    pthread_sigmask(SIG_BLOCK, &ended, nullptr);  // the Watchdog takes them (MPI's threads inherit the mask)
    int provided = 0;
    // Only the main thread calls MPI, but for the watchdog's MPI_Abort.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    ClientOptions opt;
    MpiOptions mopt;
    CliProgram program = mpi_program(mopt);
    // Every rank parses the same command line; rank 0 alone says what is wrong (or prints --help).
    std::streambuf* out = std::cout.rdbuf();
    std::streambuf* err = std::cerr.rdbuf();
    std::ostringstream quiet;
    if (rank != 0) {
        std::cout.rdbuf(quiet.rdbuf());
        std::cerr.rdbuf(quiet.rdbuf());
    }
    int rc = parse_client_options(argc, argv, opt, program);
    if (rc < 0) {
        try {
            schedule(mopt.pattern, size, mopt.one_at_a_time);
        } catch (const std::exception& e) {
            std::cerr << "zcperf-mpi: " << e.what() << "\n";
            rc = 2;
        }
    }
    std::cout.rdbuf(out);
    std::cerr.rdbuf(err);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    // Every round is bounded (set-up, barrier, test, result grace, gather), so the job is too.
    double per_round = kSetupBound_s + opt.connect_timeout_ms / 1000.0 + 2 * (opt.params.duration_s + kPairGrace_s) +
                       4 * mopt.timeout_s;
    size_t rounds = schedule(mopt.pattern, size, mopt.one_at_a_time).size() * expand_tests(opt).size();
    Watchdog dog(rank, per_round * static_cast<double>(rounds) + 2 * mopt.timeout_s + 60);
    double mopt_timeout = mopt.timeout_s;
    int status = 1;
    try {
        Job job(rank, size, std::move(opt), std::move(mopt), dog);
        status = job.run();
    } catch (const std::exception& e) {
        abort_job(rank, e.what());
    }
    // With a dead rank (mpirun --enable-recovery) MPI_Finalize can wait for it forever.
    dog.phase("MPI_Finalize (a rank died?)", std::min(mopt_timeout, 30.0));
    MPI_Finalize();
    return status;
}

}  // namespace zc::mpi
