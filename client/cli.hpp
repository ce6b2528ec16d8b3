#pragma once
// zcperf's command line: netperf-familiar options, turned into the list of tests to run.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/confidence.hpp"
#include "protocol/run_spec.hpp"

#include "options/option_rows.hpp"

namespace zc {

struct ClientOptions {
    std::vector<std::string> servers;  // HOST[:PORT]; empty = embedded server on loopback
    uint16_t port = 12875;
    std::vector<Workload> tests{Workload::stream};
    std::vector<Transport> transports{Transport{}};  // the table's first row: tcp
    std::vector<RxMode> rx_modes{RxMode::copy};
    std::vector<uint64_t> message_sizes{1u << 20};
    // Every other shared parameter, as each test gets it (transport, test, rx and message_size come
    // from the lists above, one test per combination; batch applies to msgrate only).
    TestParams params;
    SideSpec local, remote;
    std::string output = "human";  // or csv, json, json-stream (--json-stream)
    std::string csv_intervals;     // --csv-intervals FILE
    std::string explain_stacks;    // --explain-stacks FILE
    std::string html;              // --html FILE
    std::string samples_file;      // --samples FILE
    std::string histogram_log;     // --histogram-log FILE
    ConfidenceGoal goal;
    int invocations = 1;  // --invocations: every test's rounds this many times over, each invocation its own set-up
    int connect_timeout_ms = 5000;
    bool topology = false;
    std::string explain_categories;   // --explain-categories KALLSYMS: print the rules, then exit
    bool gpu_copy_bandwidth = false;  // measure cudaMemcpy's host<->GPU bandwidth, then exit
    std::string auth_key_file;
    std::string command_line;
    bool sizes_given = false;  // -m given: otherwise each test kind takes its own default size
    int family = 0;            // -4: AF_INET, -6: AF_INET6, 0 (AF_UNSPEC): whatever the name resolves to
    bool bidir = false;        // --bidir: each stream test runs beside its maerts twin (client/bidir.hpp)
    // --under-load: each transaction test once per count, with that many stream connections beside it
    // (client/under_load.hpp); load.streams is set per test by expand_tests.
    std::vector<int> under_load_counts;
    UnderLoad load;
};

// -m's default per test kind: 1 MiB for stream and maerts, 1 B for rr (netperf's TCP_RR), 2 B for
// msgrate (the verbs message-rate studies' size).
uint64_t default_message_size(Workload t, Transport tr);

// Another program built on zcperf's options (zcperf-mpi): its own name, description and examples, the
// option rows it adds after zcperf's (so every zcperf option stays defined once, here) and its checks
// of the parsed result (throw std::invalid_argument with what to do).
struct CliProgram {
    std::string name = "zcperf";
    std::string description;  // empty: zcperf's
    std::string examples;
    OptionRows rows;
    std::function<void(const ClientOptions&)> check;
    bool per_rank = false;  // --buffer cuda:local[:K] (GPU by MPI local rank) is accepted
};

// Parses argv against zcperf's option rows (client/cli.cpp) and the program's. Returns the exit code to
// leave with when parsing ends the program (--help, --version, --list-options: 0; a bad option: 2, after
// printing what is wrong and what to do), or -1 to go on.
int parse_client_options(int argc, char** argv, ClientOptions& out, const CliProgram& program = {});

// One TestSpec per (transport, test, message size, --under-load count), in the order they run.
std::vector<TestSpec> expand_tests(const ClientOptions& o);

// "0,1" -> local {0}, remote {1}; "0+2,1+3" -> lists; "0-3" -> local only; ",1" -> remote only.
void parse_cpu_option(const std::string& text, std::vector<int>& local, std::vector<int>& remote);

// "0,1" -> local node 0 (which must exist here), remote 1; ",1" -> remote only; one node per side.
void parse_mem_node_option(const std::string& text, int& local, int& remote);

// "cuda:0,host" -> local cuda:0, remote host; "pinned" -> local only (like --cpu).
void parse_buffer_option(const std::string& text, BufferSpec& local, BufferSpec& remote);
// "staged" -> both sides; "direct,staged" -> local, remote.
void parse_gpu_path_option(const std::string& text, GpuPath& local, GpuPath& remote);
// Throws std::invalid_argument when a test of the run cannot run as asked (spec_problem: a test kind
// on a transport that does not offer it, a side's --buffer or --gpu-path on a path that cannot use
// it), or --buffer wants CUDA and this build has none.
void check_tests(const ClientOptions& o);

// --interval: at least kMinIntervalS and at most the test's -l; --csv-intervals only with it.
// Throws std::invalid_argument saying what to give instead.
void check_interval(const ClientOptions& o);

// "10,3" -> {10, 3} (netperf's -i MAX,MIN); "99,5" -> {99, 5} (-I LEVEL,WIDTH).
std::pair<double, double> parse_pair(const std::string& text, const char* what);

}  // namespace zc
