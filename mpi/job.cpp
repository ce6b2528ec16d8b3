#include "job.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
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

#include "job_state.hpp"
#include "cli.hpp"
#include "control_client.hpp"
#include "cuda/device.hpp"
#include "gpu_checks.hpp"
#include "pattern.hpp"
#include "placement.hpp"
#include "under_load.hpp"
#include "protocol/field_table.hpp"
#include "report/pairs_report.hpp"
#include "server.hpp"
#include "run_driver.hpp"

namespace zc::mpi {

namespace {

// The set-up of one pair (control connection, both sides' data connections and threads) before the
// round's barrier; a pair not ready by then is reported failed and the others start without it.
constexpr double kSetupBound_s = 30;
// run_test's own bound on a stalled pair (run_driver.cpp's kResultGrace) plus a margin.
constexpr double kPairGrace_s = 40;

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

// The rendezvous record's fields, one line each (protocol/field_table.hpp); all required.
constexpr const char* kRank = "rank";  // also in each rank's round results
const auto kRankInfoFields = std::make_tuple(
    number(kRank, &RankInfo::rank), str("host", &RankInfo::host), str("address", &RankInfo::address),
    number("port", &RankInfo::port), number("local_rank", &RankInfo::local_rank), number("gpus", &RankInfo::gpus),
    list("cpus", &RankInfo::cpus, 65536), str("server_error", &RankInfo::server_error));

nlohmann::json to_json(const RankInfo& r) { return encoded(r, kRankInfoFields); }
RankInfo rank_info_from_json(const nlohmann::json& j) { return decoded<RankInfo>(j, kRankInfoFields); }

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

// One pair this rank drives, and what came of it.
struct LocalPair {
    Pair pair;
    TestSpec spec;
    Endpoint server;
    std::string error;
    nlohmann::json local, remote;
    nlohmann::json under_load;  // --under-load: the load beside the pair's test (null without)
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
        std::unique_ptr<ControlClient> load_control;  // --under-load: the load's stream test, to the same server
        if (lp.spec.load.streams > 0)
            load_control = connect_control(lp.server, std::chrono::milliseconds(opt.connect_timeout_ms), key, note);
        TestResult r = load_control ? run_under_load(*control, *load_control, lp.spec, hooks.before_start)
                                    : run_test(*control, lp.spec, hooks);
        if (r.under_load.asked || lp.spec.load.asked) {
            r.under_load.asked = true;
            lp.under_load = to_json(r.under_load);
        }
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
        if (!lp.under_load.is_null()) j["under_load"] = lp.under_load;
        j["same_host"] = lp.same_host;
    }
    return j;
}

}  // namespace

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
        so.probe_gpus = uses_gpus();   // a host-only job never starts the GPU driver, in any rank
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
        fmt::format("round {} ({}), pairs {}", round_index, workload_name(base.test), roles.empty() ? "none" : roles));
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

    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& lp : mine) pairs.push_back(to_json(lp));
    nlohmann::json payload = {{kRank, rank_},
                              {"barrier_enter_s", t_barrier},
                              {"barrier_exit_s", barrier_exit},
                              {"pairs", pairs},
                              {"done_s", wall_now()}};
    if (!all_here) {
        // The collective cannot complete: say what this rank has, then end the job.
        std::cerr << fmt::format("zcperf-mpi: rank {}: round {} results: {}\n", rank_, round_index, payload.dump());
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

int Job::run() {
    if (!opt_.auth_key_file.empty()) secret_ = SharedSecret::from_file(opt_.auth_key_file);
    try {
        me_.local_rank = local_rank_from_env([](const char* name) { return std::getenv(name); });
    } catch (const std::exception& e) {
        std::cerr << fmt::format("zcperf-mpi: rank {}: {}\n", rank_, e.what());
        me_.local_rank = -1;
    }
    if (me_.local_rank < 0) {  // no launcher variable: the rank's index among the ranks sharing its memory
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &me_.local_rank);
        MPI_Comm_free(&node);
    }
    me_.gpus = uses_gpus() ? static_cast<int>(cuda::devices().size()) : 0;
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
    // The ranks parse alike, but a check may read the rank's own state (its CPU binding, its files): a rank that
    // refuses what rank 0 took says why and the job ends, where before it left alone and silently, and the
    // others waited at the rendezvous for it ("a rank did not start"). [0]: the worst, [1]: rank 0's.
    int mine[2] = {rc, rank == 0 ? rc : INT_MIN}, all[2] = {rc, rc};
    MPI_Request agree;
    MPI_Iallreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &agree);
    if (!wait_request(agree, after(mopt.timeout_s)))
        abort_job(rank, fmt::format("the ranks did not compare their command lines within {:g} s (--mpi-timeout): a "
                                    "rank did not start",
                                    mopt.timeout_s));
    if (all[0] >= 0) {
        if (all[1] < 0 && rc > 0) {
            char host[256] = "?";
            gethostname(host, sizeof host - 1);
            // One string, one write (std::cerr writes each << at once): the ranks share stderr, and a fresh
            // clone's run interleaved two ranks' pieces ("zcperf-mpi: rank zcperf-mpi: another rank ...").
            std::cerr << fmt::format("zcperf-mpi: rank {} ({}) refused the command line rank 0 took: {}", rank, host,
                                     quiet.str());
        }
        if (rank == 0 && rc < 0)
            std::cerr << "zcperf-mpi: another rank refused the command line (its reason is above); nothing ran\n";
        MPI_Finalize();
        return std::max(rc, all[0]);
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
