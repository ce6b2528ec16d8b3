#pragma once
// One side of one test: a pinned thread per stream, each with its own buffer, all released together
// at the start of the measured interval; the side's CPU is metered over exactly that interval.
// Used by both zcperf and zcserver, so both sides measure the same way.
#include <time.h>

#include <any>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <latch>
#include <map>
#include <mutex>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "explain/side_explainer.hpp"
#include "measure/cpu_meter.hpp"
#include "measure/latency_histogram.hpp"
#include "run/concurrent_tests.hpp"
#include "protocol/interval.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"
#include "system/irq.hpp"
#include "core/data_connection.hpp"
#include "core/stream_counters.hpp"
#include "core/unique_fd.hpp"

namespace zc {

struct SideConfig {
    HalfSpec half;  // this side's half of the test: shared parameters plus its own placement
    Role role = Role::send;
    std::set<int> exclude_pids;  // not "other load" (ourselves, a same-host peer)
    std::string host;
    // --interval (half.interval_s > 0): called with each interval as it ends, from the sampler thread,
    // and with the last one from finish(); the intervals partition the measured interval.
    std::function<void(const SideInterval&)> on_interval;
    // For the other tests of this host: who runs this side ("" = this program's name), its
    // peer, and the test's token (both sides of one test share it: they are not each other's "other").
    std::string program;
    std::string peer;
    uint64_t token = 0;
    std::vector<std::string> notes;  // said in this side's warnings (a wait it made before the test)
    // Said when this side begins to wait for IRQs another test of its host holds (--irq-wait), naming it.
    std::function<void(const std::string&)> on_irq_wait = {};
};

class SideRunner {
public:
    // Starts one thread per fd; each pins itself, allocates and touches its buffer, then waits.
    SideRunner(SideConfig config, std::vector<UniqueFd> fds);
    // The same over any connection kind: TCP sockets, rsockets, RDMA connections (one per stream).
    SideRunner(SideConfig config, std::vector<DataConnection> conns);
    SideRunner(const SideRunner&) = delete;
    SideRunner& operator=(const SideRunner&) = delete;
    ~SideRunner();

    // Waits until every thread is ready; throws std::runtime_error if one could not get ready.
    void wait_ready();
    // Moves the data device's IRQs to --irq-cpus (if asked), waiting up to --irq-wait for another test of
    // this host that holds them; throws, naming that test, if it does not let go. start() does it if not
    // done yet. The two sides of a test take their hosts' IRQs one after the other, the client's side
    // first (the client before it asks the server to start, the server once asked): two tests between
    // the same hosts in the same direction then never hold one host's IRQs each and wait for the other's.
    void move_irqs();
    // Begins the measured interval: CPU snapshot, then release the threads. `started` runs next, before
    // any interval is sampled (the server's "started" goes out before its first interval).
    void start(const std::function<void()>& started = {});
    // Joins the threads, ends the interval, and returns this side's result. Throws
    // std::runtime_error naming the stream and the call that failed.
    SideResult finish();
    // Ends the test early from any thread: stops the loops and unblocks them (the peer vanished).
    void abort();
    // After finish(): the streams' connections, for a server that keeps them open until its client has
    // read its own side (server/served_test.hpp says why).
    std::vector<DataConnection> release_connections();
    bool done() const { return running_.load() == 0; }
    // Once done(): the first stream's failure in words, naming the stream and the call ("" when none failed,
    // or when the test was aborted). finish() throws it.
    std::string failure() const;

private:
    struct Stream {
        DataConnection conn;
        int cpu = -1;
        StreamCounters counters;
        int ran_on = -1;
        double user_s = 0, sys_s = 0;
        std::string setup_error;
        std::map<int, size_t> buffer_nodes;
        std::any kind_counts;  // the kind's own counts of the loop (TransportOps::loop_counts)
        std::thread thread;
        LatencyHistogram rtt;                                  // rr initiator: this stream's round trips
        std::shared_ptr<LatencySamples> samples;               // --samples: each of them (rr initiator only)
        int64_t longest_wait_ns = 0, longest_wait_end_ns = 0;  // timed senders: StopRule's record
        LatencyHistogram connect;             // crr, cc initiator: socket() to connected, per transaction
        std::any kind_start;                  // the kind's reading of the stream at the start (kind_reading_of)
        LiveCounts live;                      // --interval: the loop's running totals
        clockid_t cpu_clock{};                // the thread's CPU clock, taken at start()
        int64_t cpu_base_ns = -1;             // ... its reading then (-1: none)
        std::atomic<int64_t> cpu_end_ns{-1};  // ... its own last reading, as it ends
        int64_t loop_end_ns = 0;              // CLOCK_MONOTONIC as its loop returned (0: it did not run)
    };
    void place_interrupts();
    void report_interrupts(Placement& p) const;
    void note_placement_mismatches(SideResult& r) const;
    void register_on_host();                    // at the start barrier: this side joins the host's list of tests
    void note_concurrent_tests(SideResult& r);  // at the end: the tests that overlapped it, and it leaves the list
    void run_stream(Stream& s, int index);
    // --interval: the sampler thread's loop, one reading of every stream's running totals, and the end.
    void sample_intervals();
    IntervalReading read_totals() const;
    void stop_sampler();
    void emit(const IntervalReading& now, int64_t edge);  // the interval from the last edge to `now` (at `edge`)

    SideConfig cfg_;
    std::vector<Stream> streams_;
    std::latch ready_;
    std::latch go_;
    std::atomic<bool> abort_{false};
    std::atomic<int> running_;
    StopRule stop_base_;
    int64_t started_ns_ = 0;  // CLOCK_MONOTONIC at the start barrier: the measured interval's zero
    CpuMeter meter_;
    std::unique_ptr<SideExplainer> explainer_;  // --explain: sampling over exactly the meter's interval
    Placement placement_;
    std::vector<int> irqs_;
    std::map<int, InterruptLine> irq_counts_before_;
    std::unique_ptr<IrqAffinityGuard> irq_guard_;  // restores the IRQs when the test ends, however
    bool irqs_moved_ = false;
    std::unique_ptr<ConcurrentTestRecord> host_record_;  // this side in the host's list of tests, while it measures
    std::string host_record_problem_;                    // why there is none (the run directory cannot be used)
    double started_wall_s_ = 0;                          // wall clock at the start barrier (compared across processes)
    bool started_ = false;
    bool joined_ = false;  // finish() saw every stream thread end
    std::thread sampler_;
    std::mutex sampler_mu_;
    std::condition_variable sampler_cv_;
    bool sampler_stop_ = false;
    IntervalReading last_reading_;  // the sampler's previous edge (the sampler's, then finish()'s)
    int64_t last_edge_ = 0;         // the interval edge last_reading_ was taken at (the next interval's index)
    uint32_t intervals_sent_ = 0;
};

}  // namespace zc
