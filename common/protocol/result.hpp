#pragma once
// The one result structure: each side fills a SideResult over its own measured interval; the client
// merges both into a TestResult, the only input of every report writer. Units are in the names.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/cpu_meter.hpp"
#include "explain/explain_result.hpp"
#include "protocol/interval.hpp"
#include "protocol/kind_block.hpp"
#include "protocol/message_stats.hpp"
#include "protocol/pacing_report.hpp"
#include "protocol/gpu_report.hpp"
#include "protocol/concurrent_test.hpp"
#include "protocol/run_spec.hpp"
#include "core/stream_counters.hpp"

namespace zc {

struct IrqReport {
    int irq = 0;
    std::string name;
    std::string affinity;         // smp_affinity_list during the test
    std::string affinity_before;  // what it was (and is again after the test)
    uint64_t interrupts = 0;      // taken during the measured interval, all CPUs
    std::vector<uint64_t> per_cpu;
};

// Where this side's work and memory really were: every figure read back from the kernel.
struct Placement {
    std::string interface;                         // the network device carrying the data ("lo" on loopback)
    std::string pci;                               // its PCI function; "" for a virtual device
    int device_numa_node = -1;                     // -1: unknown (single node, or the firmware does not say)
    int mem_node = -1;                             // requested with --mem-node; -1 = wherever the kernel puts it
    std::map<int, uint64_t> buffer_pages_by_node;  // read back with move_pages
    std::vector<int> cpu_nodes;                    // NUMA node of each data thread's CPU
    std::vector<IrqReport> irqs;
    std::string irq_note;  // e.g. loopback has no IRQs
    GpuPlacement gpu;      // the GPU holding the buffers, and its PCIe relation to the device
};

struct SideResult {
    std::string host;
    Role role = Role::send;
    uint64_t bytes = 0;       // moved by this side over its interval
    uint64_t ops = 0;         // send()/recv() calls that returned data
    std::string path;         // the data path this side ran: "tcp-msgzc", "rx-zerocopy", ...
    ZeroCopyCounts zerocopy;  // the kernel's word on zero-copy (zeros where the path has none)
    double elapsed_s = 0;     // the measured interval: the start barrier to finish() (what the CPU covers)
    // The stream loops' part of it: the start barrier to the last loop's end (0: not known, an older
    // server). The client's elapsed_s also holds its wait for the server's result (tens of ms): rates
    // counted by the loops divide by this one (measured_s()).
    double loops_s = 0;
    double measured_s() const { return loops_s > 0 ? loops_s : elapsed_s; }
    std::vector<uint64_t> stream_bytes;
    std::vector<int> cpus;      // CPU each data thread was on when it finished (the pinning in force)
    CpuUsage cpu;               // whole host, from /proc/stat
    double process_user_s = 0;  // this test's threads (getrusage RUSAGE_THREAD, summed)
    double process_sys_s = 0;
    Placement placement;
    uint64_t socket_send_buffer = 0;  // effective SO_SNDBUF / SO_RCVBUF of the first stream
    uint64_t socket_recv_buffer = 0;
    // Timed stream senders: the longest wait inside one data call (any stream), and when it ended, in
    // seconds from the start of this side's measured interval; 0 where not measured.
    double longest_call_s = 0;
    double longest_call_end_s = 0;
    std::vector<std::string> warnings;
    // Other tests on this side's host during its measured interval: when any, the whole-host CPU figures
    // (CPU%, SD, per CPU) count their work too, and the reports mark them shared.
    std::vector<ConcurrentTest> shared_with;
    MessageSide messages;  // rr, msgrate: messages (transactions) this side counted
    MemoryReport memory;   // buffer memory kind; GPU staging's cost
    PacingReport pacing;   // -b: the rate asked and how this side's loops kept it (any kind)
    ExplainSide explain;   // --explain: where the sampled CPU time went (ran = false: not asked, or why not)
    KindBlocks kinds;      // each kind's own report block, by its key (protocol/kind_block.hpp)

    double process_cpu_s() const { return process_user_s + process_sys_s; }
    double cpu_util_pct() const { return cpu.all.busy(); }
    double process_cpu_util_pct() const;  // % of all CPUs, comparable with cpu_util_pct
    double service_demand_us_per_kb() const;
    double process_service_demand_us_per_kb() const;
    double test_cpus_busy_s() const;  // busy CPU-seconds on the data threads' CPUs
    double others_cpu_pct_of_one_cpu() const;
    bool host_shared() const { return !shared_with.empty(); }
};

struct IterationStats {
    int iterations = 1;
    double level_pct = 0;  // 0 = no confidence goal was set
    double width_goal_pct = 0;
    double throughput_width_pct = 0;  // achieved full width of `metric`'s interval, % of its mean
    // What -i/-I judged: "throughput_gbps" (stream, maerts); rr "transactions_per_s" and msgrate
    // "messages_per_s", whose bytes say little (a 1-byte rr is all round trips).
    std::string metric = "throughput_gbps";
    bool met = true;
};

// The same test on the first transport of the run, for "is zero-copy cheaper than copying?".
struct BaselineRatio {
    std::string transport;  // empty: this result is (or has no) baseline
    double throughput = 0;  // this / baseline
    double local_service_demand = 0;
    double remote_service_demand = 0;
    // --explain on both runs: this run's category CPU per unit (us/KB, us per transaction or message)
    // minus the baseline's, per side; empty where either run has no explanation.
    std::vector<std::pair<Category, double>> local_explain_delta, remote_explain_delta;
};

// --under-load: the load streams that ran beside a transaction test (client/under_load.hpp), as their own
// stream test counted them (bytes by the receiver); asked = false: the test ran without --under-load.
struct LoadBeside {
    bool asked = false;
    int streams = 0;  // 0: this test ran alone (a sweep's "0")
    std::string transport;
    uint64_t message_size = 0;
    uint64_t bytes = 0;  // counted by the load's receiver
    double elapsed_s = 0;
    double throughput_gbps = 0;
    double local_cpu_pct = 0, remote_cpu_pct = 0;  // whole host, over the load's interval (the test's work too)
    std::vector<int> local_cpus, remote_cpus;      // where the load's threads ran (read back)
    // How long the load ran before the test's measured interval began and after it ended, by the client's
    // clock (the load's own interval around the test's); a negative tail: the load stopped first.
    double lead_s = 0, tail_s = 0;
};

// The under_load object of the report, and back (zcperf-mpi's ranks send it to rank 0); throws ProtocolError.
nlohmann::json to_json(const LoadBeside& l);
LoadBeside load_beside_from_json(const nlohmann::json& j);

struct TestResult {
    Transport transport{};  // the table's first row: tcp
    RxMode rx = RxMode::copy;
    Workload test = Workload::stream;
    uint64_t message_size = 0;
    int streams = 1;
    uint64_t bytes = 0;    // counted by the receiver
    double elapsed_s = 0;  // the receiver's interval
    double throughput_gbps = 0;
    double setup_ms = 0;  // control set-up + teardown of the test (data connections included)
    SideResult local, remote;
    IterationStats iterations;
    BaselineRatio baseline;
    std::vector<std::string> warnings;
    MessageResult messages;              // rr, msgrate: the figures both sides' counts agree on
    double interval_s = 0;               // --interval (0: none)
    std::vector<IntervalRow> intervals;  // partition the measured interval (each repetition's, in turn)
    // --bidir: this direction ran at the same time as the other (its result is reported beside it);
    // the sum of both directions' throughput. Empty / 0 otherwise.
    std::string bidir_with;
    double bidir_sum_gbps = 0;
    // -i: each repetition's result_figures, in turn (zcperf compare's samples); empty for one run.
    std::vector<nlohmann::json> round_figures;
    // --invocations: which invocation (1-based) each of round_figures ran in; empty: all in one.
    std::vector<int> round_invocations;
    LoadBeside under_load;  // --under-load
};

// --explain's unit, as service demand's: KB moved (stream, maerts), transactions (rr), messages
// (msgrate); explain_units is how many of them the side moved (its own bytes; the agreed message count).
const char* explain_unit(Workload t);  // "us/KB", "us/tran", "us/msg"
double explain_units(const TestResult& r, const SideResult& s);
// A category's CPU time per unit, in us.
inline double explain_per_unit(double cpu_s, double units) { return units > 0 ? cpu_s * 1e6 / units : 0; }

// The keys of SideResult's blocks that the report adds its figures to (result_report.cpp).
inline constexpr const char* kZeroCopyKey = "zerocopy";
inline constexpr const char* kExplainKey = "explain";

nlohmann::json to_json(const CpuUsage& u);

// The figures zcperf compare puts side by side, flat, by name (the unit in the name): the rate
// (throughput_gbps; rr transactions_per_s, msgrate messages_per_s), each side's service demand and the
// test threads' own (proc), rr's RTT percentiles, and with --explain each category per unit
// (local_explain_copy_us_per_kb ...). The JSON report's kFiguresKey; each repetition's in kIterationsKey.kRoundsKey.
nlohmann::json result_figures(const TestResult& r);
// The keys of a test's report document that zcperf compare reads back (result_report.cpp writes them).
inline constexpr const char* kFiguresKey = "figures";
inline constexpr const char* kIterationsKey = "iterations";
inline constexpr const char* kRoundInvocationsKey = "round_invocations";  // beside kRoundsKey, with --invocations
inline constexpr const char* kRoundsKey = "rounds";
CpuUsage cpu_usage_from_json(const nlohmann::json& j);
nlohmann::json to_json(const SideResult& s);
SideResult side_result_from_json(const nlohmann::json& j);  // throws ProtocolError
nlohmann::json to_json(const TestResult& r);

}  // namespace zc
