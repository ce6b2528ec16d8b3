#include "cli.hpp"

#include <sys/socket.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <fmt/format.h>
#include <algorithm>
#include <iostream>

#include "cuda/device.hpp"
#include "explain/side_explainer.hpp"
#include "run/build_info.hpp"
#include "protocol/interval.hpp"
#include "kind/kind_module.hpp"
#include "options/kind_options.hpp"
#include "options/option_rows.hpp"
#include "system/affinity.hpp"
#include "system/cpu_list.hpp"
#include "system/numa.hpp"
#include "kind/spec_rules.hpp"
#include "kind/transport_ops.hpp"
#include "core/pacer.hpp"
#include "core/units.hpp"
#include "socket/endpoint.hpp"
#include "compare_cli.hpp"
#include "measure/latency_samples.hpp"
#include "under_load.hpp"
#include "measure/percentiles.hpp"

namespace zc {

namespace {

constexpr const char* kDescription =
    "zcperf " ZCPERF_VERSION
    ": is the copy or the zero-copy path cheaper here, and why?\n"
    "Measures throughput, both sides' CPU and service demand (us of CPU per KB, netperf's unit) between\n"
    "zcperf and a zcserver, or against an embedded server on loopback when no -H is given.\n";

constexpr const char* kExamples = R"(
Examples:
  zcperf                                 1 MiB TCP stream to an embedded server on loopback, 10 s
  zcperf -H server1 -m 64K..4M --cpu 0,1 size sweep, client data thread on CPU 0, server's on CPU 1
  zcperf -H 10.0.0.2:5000 -t maerts -P 4 --cpu 0-3,0-3
                                         4 streams, server sends, threads pinned round-robin
  zcperf -m 64K,1M -l 5 -i 10,3 -I 99,5 -o json > run.json
                                         repeat each size until the 99% confidence interval of
                                         throughput and service demand is within 5% (netperf's -i/-I)
  zcperf -n 1G -s 4M -S 4M -o csv        move exactly 1 GiB with 4 MiB socket buffers on both sides
  zcperf -l 30 -D 1                      a line per second with both sides' Gb/s, CPU and SD as it runs
  zcperf -l 60 -D 0.5 --json-stream | jq -c 'select(.event == "interval")'
                                         one JSON object per interval, for a live dashboard or a log
  zcperf -t rr --cpu 0,1                 1-byte request/response: round-trip time min/mean/p50/p90/p99/
                                         p99.9/max, one-way latency (RTT/2), transactions/s, us/Tran
  zcperf -t rr -m 1,64,4K..1M -l 5       a latency table by message size (scripts/latency_table.py
                                         runs several such and prints the ratio to a baseline)
  zcperf -t msgrate -P 2 --cpu 0+1,0+1   2-byte message rate, 2 threads each with its own connection
  zcperf -t msgrate --batch 16           16 messages per sendmmsg() call
  zcperf -t crr -P 2 --cpu 0,1           a new TCP connection per 1-byte transaction (netperf's TCP_CRR):
                                         transactions/s, whole-transaction and connect latency, us/Tran
  zcperf --bidir -m 64K -H server        stream and maerts at once: each direction, and the sum
)";
// After the kinds' own examples (KindModule::help_examples).
constexpr const char* kExamplesAfterKinds = R"(  zcperf -H 10.0.0.2 -T rdma-write,rdma-send,rsocket -m 64K,1M -l 5
                                         RDMA paths (rdma-core): the address must be on the RDMA NIC
                                         (rdma_cm refuses loopback, so no embedded server)
  zcperf -H 10.0.0.2 -T rdma-write --qps 4 --postlist 8 --cq-mode event
                                         4 queue pairs per stream, 8 work requests per post, sleeping on
                                         the completion channel: compare the service demand with poll
  zcperf -H 10.0.0.2 -T rdma-send,rdma-write,rsocket -t rr -m 1,4K,1M
                                         RDMA round trips: rdma-send waits on a receive completion,
                                         rdma-write polls the landing buffer's last byte (ib_write_lat's
                                         way; with --cq-mode event it writes with immediate data instead)
  zcperf -H 10.0.0.2 -T rdma-send -t msgrate -P 4 --qps-per-context 2 --postlist 8 --inline 64
                                         2-byte message rate, 4 threads each with its own QP and CQ, one
                                         device context per 2 threads, 8 SENDs per ibv_post_send, inline
  MLX5_SHUT_UP_BF=1 zcperf -H 10.0.0.2 -T rdma-write -t msgrate -P 16 --qps-per-context 16 --thread-domains
                                         16 threads on one context, each with a thread domain (its own
                                         doorbell register on mlx5), BlueFlame off on this side; the
                                         report records the provider and the doorbell variables per side
  zcperf --buffer cuda:0,cuda:0 -m 4M --cpu 2,4
                                         GPU memory on both sides, staged through pinned bounce buffers;
                                         the report gives the staging's copy time (compare --buffer host)
  zcperf -H 198.18.0.1 -T rdma-write --buffer cuda:0,cuda:0
                                         GPU memory over verbs: registered with ibv_reg_dmabuf_mr (direct) where
                                         the NIC takes it, else staged; each side's memory line says which and why
  zcperf --gpu-copy-bandwidth            cudaMemcpy's own host<->GPU bandwidth here, the staging's ceiling

Reading the report: CPU% is the whole host (all CPUs, from /proc/stat, softirq on any core included);
SD is that CPU time per KB moved; "proc SD" counts only the test's own threads (getrusage), which misses
kernel work done in softirq on other cores: the gap between the two is where the network stack ran.
rr: the client times each transaction (one message each way) with two clock reads; both sides count
transactions and must agree. latency_us = RTT/2 (OSU's and perftest's convention); SD is us of CPU
per transaction (netperf's us/Tran). msgrate: messages sent with TCP_NODELAY, counted by both sides;
the report gives the data segments per message the kernel really sent (TCP_INFO). Over rdma-send /
rdma-write one message is one work request, counted by the receiver after checking its pattern; the
report says how many went inline and in how many ibv_post_send calls. -i/-I judge rr on transactions/s
and msgrate on messages/s (and service demand per message), not on Gb/s.
Exit status: 0 ok, 1 a test failed (the reason is printed), 2 bad usage, 130 interrupted.
)";

// The rows whose stream senders take --batch too (sendmmsg), beside the msgrate senders that batch.
bool batches_streams(const TransportInfo& r) { return (r.batch_tests & kStreams) != 0; }

// zcperf's examples with each kind's own among them, in the rows' order (-T's default kind first).
std::string examples() {
    std::vector<const KindModule*> kinds(kind_modules().begin(), kind_modules().end());
    std::stable_sort(kinds.begin(), kinds.end(), [](const KindModule* a, const KindModule* b) {
        return a->description->rank < b->description->rank;
    });
    std::string out = kExamples;
    for (const KindModule* m : kinds)
        if (m->help_examples) out += m->help_examples;
    return out + kExamplesAfterKinds;
}

// `allowed`: the CPUs a local CPU of the option must be one of; `what` says which set that is.
void check_cpus_exist(const std::vector<int>& cpus, const std::vector<int>& allowed, const char* what) {
    for (int c : cpus) {
        if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) {
            throw std::invalid_argument("local CPU " + std::to_string(c) + " is not " + what +
                                        " here; CPUs: " + format_cpu_list(allowed));
        }
    }
}

}  // namespace

void parse_cpu_option(const std::string& text, std::vector<int>& local, std::vector<int>& remote) {
    auto parts = split_commas(text);
    if (parts.size() > 2) {
        throw std::invalid_argument(
            "--cpu takes LOCAL[,REMOTE]; separate several CPUs of one side with '+' "
            "(0+2+4) or give a range (0-3)");
    }
    local = parse_cpu_list(parts[0], '+');
    if (parts.size() == 2) remote = parse_cpu_list(parts[1], '+');
}

void parse_buffer_option(const std::string& text, BufferSpec& local, BufferSpec& remote) {
    auto parts = split_commas(text);
    if (parts.size() > 2) throw std::invalid_argument("--buffer takes LOCAL[,REMOTE], e.g. cuda:0,host");
    if (!parts[0].empty()) local = buffer_spec_from_name(parts[0]);
    if (parts.size() == 2 && !parts[1].empty()) remote = buffer_spec_from_name(parts[1]);
}

void parse_gpu_path_option(const std::string& text, GpuPath& local, GpuPath& remote) {
    auto parts = split_commas(text);
    if (parts.size() > 2) throw std::invalid_argument("--gpu-path takes MODE or LOCAL,REMOTE, e.g. staged");
    local = gpu_path_from_name(parts[0]);
    remote = parts.size() == 2 ? gpu_path_from_name(parts[1]) : local;
}

void check_tests(const ClientOptions& o) {
    if (o.local.buffer.needs_cuda() && !cuda::built()) {
        throw std::invalid_argument("--buffer " + buffer_spec_name(o.local.buffer) + ": " + cuda::unavailable_reason());
    }
    for (const TestSpec& spec : expand_tests(o)) {
        if (std::string why = spec_problem(spec); !why.empty()) throw std::invalid_argument(why);
    }
}

// --under-load's rules over the other options; its load's own test against the capability rules.
void check_under_load(const ClientOptions& o) {
    if (!o.load.asked) {
        if (!o.load.local_cpus.empty() || !o.load.remote_cpus.empty())
            throw std::invalid_argument("--load-cpu places --under-load's streams: give --under-load N too");
        return;
    }
    if (!std::all_of(o.tests.begin(), o.tests.end(), is_transaction_test))
        throw std::invalid_argument(
            "--under-load times rr, crr or cc transactions beside stream connections: give -t rr (or crr, cc); "
            "for streams beside streams use -P");
    if (o.goal.max_iterations > 1)
        throw std::invalid_argument("--under-load runs each test once, without -i/-I: repeat the run for more rounds");
    for (const TestSpec& spec : expand_tests(o)) {
        if (std::string why = load_problem(spec); !why.empty()) throw std::invalid_argument(why);
    }
}

// --bidir's rules over other options.
void check_bidir(const ClientOptions& o) {
    if (!o.bidir) return;
    if (o.tests != std::vector<Workload>{Workload::stream})
        throw std::invalid_argument("--bidir runs stream and maerts together: give -t stream (or no -t)");
    if (o.goal.max_iterations > 1 || o.params.interval_s > 0)
        throw std::invalid_argument("--bidir runs each direction once, without -i/-I or -D");
}

// A kind's rows among zcperf's: [first, last) of the parsed rows.
struct GroupRows {
    const KindOptionGroup* group;
    size_t first, last;
};

// The transports a run uses: -T's and --under-load's.
std::vector<Transport> transports_run(const ClientOptions& o) {
    std::vector<Transport> out = o.transports;
    if (o.load.transport) out.push_back(*o.load.transport);
    return out;
}

// A kind's option needs a transport of the run that takes it: never silently ignored.
void check_kind_options_taken(const ClientOptions& o, const OptionRows& rows, const std::vector<GroupRows>& groups) {
    const std::vector<Transport> given = transports_run(o);
    for (const auto& g : groups) {
        if (std::any_of(given.begin(), given.end(), [&](Transport t) { return g.group->takes(transport_info(t)); }))
            continue;
        for (size_t i = g.first; i < g.last; ++i)
            if (rows[i].option && rows[i].option->count() > 0)
                throw std::invalid_argument(rows[i].option->get_name() + " is for -T " +
                                            transport_names_where(g.group->takes) +
                                            ": none of the transports given takes it");
    }
}

// Each kind's own check of its options (options/kind_options.hpp), against the servers and directions run.
void check_kind_option_groups(const ClientOptions& o) {
    auto runs = [&o](Workload w) { return std::find(o.tests.begin(), o.tests.end(), w) != o.tests.end(); };
    KindOptionRun run{.params = o.params.kind_params,
                      .values = o.params.kind_options,
                      .transports = transports_run(o),
                      .tests = o.tests,
                      .streams = o.params.streams,
                      .family = o.family};
    run.sends = runs(Workload::stream) || runs(Workload::rr);
    run.receives = runs(Workload::maerts) || runs(Workload::rr) || (o.bidir && run.sends);
    if (o.servers.empty()) run.hosts.emplace_back(o.family == AF_INET6 ? "::1" : "127.0.0.1");  // the embedded one
    for (const auto& s : o.servers) run.hosts.push_back(parse_endpoint(s, o.port).host);
    for (const auto* g : kind_option_groups())
        if (g->check) g->check(run);
}

void check_interval(const ClientOptions& o) {
    double every = o.params.interval_s;
    if (every == 0) {
        if (!o.csv_intervals.empty()) throw std::invalid_argument("--csv-intervals needs --interval SECS");
        return;
    }
    if (!(every >= kMinIntervalS)) {
        throw std::invalid_argument("--interval " + fmt::format("{:g}", every) +
                                    " is too short: the CPU figures come in 1/100 s ticks, so use 0.01 s or more");
    }
    if (!o.params.total_bytes && every > o.params.duration_s) {
        throw std::invalid_argument(fmt::format(
            "--interval {:g} is longer than the test (-l {:g}): there would be no interval to report; use an "
            "interval of at most {:g} s, or a longer -l",
            every, o.params.duration_s, o.params.duration_s));
    }
    if (!o.params.total_bytes && o.params.duration_s / every > kMaxIntervals) {
        throw std::invalid_argument(
            fmt::format("--interval {:g} over -l {:g} makes {:.0f} intervals, over the limit of "
                        "{:.0f} a test; use an interval of at least {:g} s",
                        every, o.params.duration_s, o.params.duration_s / every, kMaxIntervals,
                        o.params.duration_s / kMaxIntervals));
    }
}

std::pair<double, double> parse_pair(const std::string& text, const char* what) {
    auto parts = split_commas(text);
    auto number = [&](const std::string& s) {
        size_t used = 0;
        double v = std::stod(s, &used);
        if (used != s.size()) throw std::invalid_argument("trailing characters");
        return v;
    };
    try {
        if (parts.size() == 1) return {number(parts[0]), -1};
        if (parts.size() == 2) return {number(parts[0]), number(parts[1])};
    } catch (const std::exception&) {}
    throw std::invalid_argument(std::string(what) + " takes two numbers separated by a comma, got '" + text + "'");
}

namespace {

// "a,b" through from_name into the list (each item checked by from_name, in the user's words).
template <class E, class From>
std::function<void(const std::string&)> name_list(std::vector<E>& out, From from_name) {
    return [&out, from_name](const std::string& text) {
        out.clear();
        for (const auto& item : split_commas(text)) out.push_back(from_name(item));
    };
}

void check_goal(const ConfidenceGoal& g) {
    if (g.max_iterations < 1 || g.max_iterations > 30 || g.min_iterations < 1 || g.min_iterations > g.max_iterations) {
        throw std::invalid_argument("-i MAX,MIN needs 1 <= MIN <= MAX <= 30");
    }
    if (g.level_pct < 50 || g.level_pct >= 100 || g.width_pct <= 0)
        throw std::invalid_argument("-I LEVEL,WIDTH needs 50 <= LEVEL < 100 and WIDTH > 0 (percent)");
}

// zcperf's options, one row each (common/options/option_rows.hpp), in --help's order. A number the
// server also receives takes its range from the wire table (wire_range), so both refuse the same values.
OptionRows client_rows(ClientOptions& o, const CliProgram& program) {
    auto iterations_given = std::make_shared<bool>(false);
    return {
        value("-H,--host", o.servers,
              "zcserver to test against, HOST[:PORT]; repeat for several (default: an embedded server on loopback)"),
        value("-p,--port", o.port, "control port for -H hosts given without one"),
        text("-t,--test", workload_help() + "; several: stream,maerts", name_list(o.tests, workload_from_name))
            .choose(row_names(workload_rows()))
            .shows("stream"),
        text("-T,--transport",
             "data path(s) of the sender, comma-separated; the first is the baseline others are compared with "
             "(the rsocket and rdma-* ones need an RDMA device, and -H an address on it):" +
                 transport_help(),
             name_list(o.transports, [](const std::string& n) { return transport_from_name(n); }))
            .choose(available_transports())
            .shows(transport_name(Transport{})),  // the first row: -T's default
        text("--rx", "how the receiver takes the data, comma-separated for several; " + rx_mode_help(),
             name_list(o.rx_modes, [](const std::string& n) { return rx_mode_from_name(n); }))
            .choose(rx_mode_choices())
            .shows("copy"),
        text("-m,--message-size",
             "bytes per send/recv call (rr, msgrate: per message, 1 B..1G): 64K, a list 64K,1M, or a doubling range "
             "64K..4M; each size is one result (default: 1M; rr, crr, cc 1; msgrate 2)",
             [&o](const std::string& t) {
                 auto range = wire_range(&TestParams::message_size);
                 o.message_sizes = parse_size_list(t);
                 o.sizes_given = true;
                 for (uint64_t s : o.message_sizes) {
                     if (s < range.lo || s > range.hi)
                         throw std::invalid_argument(fmt::format("message size {} must be {} B..{}", s,
                                                                 format_size(range.lo), format_size(range.hi)));
                 }
             }),
        value_in("--batch", o.params.batch, wire_range(&TestParams::batch),
                 "msgrate, and the stream tests of -T " + transport_names_where(batches_streams) +
                     ": messages (datagrams) per send call (sendmmsg), 1..1024"),
        // How a sender paces (any transport).
        text("-b,--bitrate",
             "each stream's rate in bits/s (iperf3's -b): 100M, 2.5G, 1k at least, kept by the sender's own "
             "clock on every transport (UDP over an fq qdisc: the kernel paces too, SO_MAX_PACING_RATE); the "
             "report gives the rate achieved and how. UDP without -b sends as fast as it can. stream and maerts; "
             "msgrate over -T " +
                 transport_names_where(
                     [](const TransportInfo& r) { return (r.paced_tests & bit(Workload::msgrate)) != 0; }),
             [&o](const std::string& t) { o.params.bitrate = parse_bitrate(t); })
            .value_kind("RATE"),
        value_in("-l,--duration", o.params.duration_s, wire_range(&TestParams::duration_s).from(0.01),
                 "seconds of data transfer per test (>= 5 for trustworthy CPU figures)"),
        size_in("-n,--bytes", o.params.total_bytes, 1, wire_range(&TestParams::total_bytes).hi,
                "move exactly this many bytes instead (e.g. 10G), split over the streams")
            .excluding("-l"),
        value_in("-P,--streams", o.params.streams, wire_range(&TestParams::streams),
                 "parallel streams, one thread per stream on each side"),
        size_in("-s,--local-sockbuf", o.local.socket_buffer, 0, wire_range(&SideSpec::socket_buffer).hi,
                "local SO_SNDBUF/SO_RCVBUF (e.g. 4M; default: kernel autotuning)", "socket buffers are limited to 1G"),
        size_in("-S,--remote-sockbuf", o.remote.socket_buffer, 0, wire_range(&SideSpec::socket_buffer).hi,
                "remote SO_SNDBUF/SO_RCVBUF", "socket buffers are limited to 1G"),
        action("-4,--ipv4", "IPv4 only, control and data", [&o] { o.family = AF_INET; }),
        action("-6,--ipv6", "IPv6 only, control and data (without -H the embedded server listens on ::1)",
               [&o] { o.family = AF_INET6; })
            .excluding("-4"),
        flag("--bidir", o.bidir,
             "stream and maerts at once, each on its own connections (iperf3's --bidir): each direction's throughput "
             "and CPU is reported, and their sum (-t stream; not with -i/-I or -D)"),
        text("--cpu",
             "pin data threads: LOCAL[,REMOTE], each a CPU, a range 0-3 or a list 0+2 (round-robin over streams)",
             [&o](const std::string& t) {
                 parse_cpu_option(t, o.local.cpus, o.remote.cpus);
                 check_cpus_exist(o.local.cpus, allowed_cpus(), "available");
             }),
        text("--mem-node",
             "NUMA node of the data buffers: LOCAL[,REMOTE] (libnuma); where the pages really are is read back and "
             "reported",
             [&o](const std::string& t) { parse_mem_node_option(t, o.local.mem_node, o.remote.mem_node); }),
        text("--irq-cpus",
             "move the data device's IRQs to these CPUs for each test: LOCAL[,REMOTE], same forms as --cpu; put "
             "back afterwards (needs root; the server needs --allow-irq-affinity)",
             [&o](const std::string& t) {
                 parse_cpu_option(t, o.local.irq_cpus, o.remote.irq_cpus);
                 // The host's online CPUs, not this process's: under mpirun a rank bound to core 1 still
                 // moves the host's IRQs to CPU 0 (its check refused that, and the rank left the job silently).
                 check_cpus_exist(o.local.irq_cpus, online_cpus(), "online");
             }),
        // Tests that share a host.
        value_in("--irq-wait", o.params.irq_wait_s, wire_range(&TestParams::irq_wait_s),
                 "when another test on either host holds the IRQs --irq-cpus would move, wait up to SECS for it to "
                 "end instead of being refused at once (default 0: refused, naming that test)")
            .value_kind("SECS"),
        value_in("--server-wait", o.params.server_wait_s, wire_range(&TestParams::server_wait_s),
                 "when the server runs --exclusive and another client's test is running, wait up to SECS for it to "
                 "end instead of being refused at once (default 0); the report says how long it waited")
            .value_kind("SECS"),
        text("--buffer",
             "memory of the data buffers: LOCAL[,REMOTE], each host (pageable), pinned (cudaHostAlloc) or cuda[:N] "
             "(GPU memory: staged through pinned bounce buffers over sockets and rsockets; direct or staged over "
             "rdma-write/-send/-read, see --gpu-path); one value sets the local side only, like --cpu: "
             "cuda:0,cuda:0 for GPU to GPU. stream, maerts and rr over sockets; msgrate uses host memory",
             [&o, per_rank = program.per_rank](const std::string& t) {
                 parse_buffer_option(t, o.local.buffer, o.remote.buffer);
                 for (const BufferSpec* b : {&o.local.buffer, &o.remote.buffer}) {
                     if (b->per_local_rank() && !per_rank) {
                         throw std::invalid_argument("--buffer " + buffer_spec_name(*b) +
                                                     " chooses the GPU by MPI local rank: it is zcperf-mpi's; here "
                                                     "give a device, e.g. cuda:0");
                     }
                 }
             }),
        text("--gpu-path",
             "how GPU memory meets the network: staged (pinned bounce buffers, any transport), direct (the NIC DMAs "
             "GPU memory: GPUDirect RDMA, ibv_reg_dmabuf_mr on rdma-write/-send/-read; an error where refused, and "
             "over sockets and rsockets), auto (default: direct where registration succeeds, else staged; the report's "
             "memory line says which ran and why); MODE or LOCAL,REMOTE",
             [&o](const std::string& t) { parse_gpu_path_option(t, o.local.gpu_path, o.remote.gpu_path); })
            .choose(enum_names(GpuPath::direct, gpu_path_name)),
        flag("--gpu-copy-bandwidth", o.gpu_copy_bandwidth,
             "measure cudaMemcpy's pinned and pageable host<->GPU bandwidth on each local GPU (the staged path's "
             "ceiling), then exit"),
        text("--align", "buffer alignment in bytes, a power of two",
             [&o](const std::string& t) {
                 auto range = wire_range(&TestParams::alignment);
                 uint64_t a = parse_size(t);
                 if (a < range.lo || a > range.hi || (a & (a - 1)))
                     throw std::invalid_argument("--align must be a power of two up to " + format_size(range.hi));
                 o.params.alignment = a;
             })
            .shows("4096"),
        value("-o,--output", o.output, "report format: human, csv or json").choose({"human", "csv", "json"}),
        value("-D,--interval", o.params.interval_s,
              "SECS: both sides sample their counters and CPU every SECS seconds as the test runs (0.01 up to the "
              "test's -l; netperf's demo mode): the human report prints a line per interval (Gb/s, each side's CPU% "
              "and service demand; rr: transactions/s and the interval's p50/p99 RTT; msgrate: messages/s; STALL "
              "where nothing moved), JSON gains \"intervals\" (they add up to the result's bytes exactly); default: "
              "off"),
        action("--json-stream",
               "print one JSON object per line as things happen (start, each interval, each result, end), flushed "
               "at once: for live dashboards and log pipelines (instead of -o)",
               [&o] { o.output = "json-stream"; })
            .excluding("-o"),
        value("--csv-intervals", o.csv_intervals,
              "FILE: also write one CSV row per interval there as the test runs (needs --interval)")
            .value_kind("FILE"),
        html_option(o.html),
        // --explain: where each side's CPU went, by kernel category.
        action("--explain",
               "sample every CPU of each side over the measured interval (perf_event_open, cpu-clock) and report "
               "where the CPU went: data copy, checksum, crypto/kTLS, TCP/IP, netdev, skb, memory, zero-copy "
               "bookkeeping, locks, "
               "scheduling, syscall entry, RDMA, user time (libcrypto's apart), in us/KB (rr: per transaction, "
               "msgrate: per message), "
               "with the top kernel functions and the per-CPU split; with several -T or --rx, the deltas against "
               "the first. Needs root, CAP_PERFMON or kernel.perf_event_paranoid=-1 on each side (a side without "
               "says so; the test still runs)",
               [&o] {
                   if (o.params.explain_hz == 0) o.params.explain_hz = kDefaultExplainHz;
               }),
        value_in("--explain-hz", o.params.explain_hz, Bounds<int>{1, kMaxExplainHz},
                 "samples per second per CPU, 1-" + std::to_string(kMaxExplainHz) +
                     " (implies --explain; --explain alone: " + std::to_string(kDefaultExplainHz) + ")"),
        value("--explain-stacks", o.explain_stacks,
              "FILE: write each side's sampled call stacks there, folded (\"side;func;...;leaf count\", the test's "
              "label first when the run has several tests), for flamegraph.pl, inferno or speedscope (implies "
              "--explain); -o json and --html carry the stacks too (\"stacks\" under each side's \"explain\")")
            .value_kind("FILE"),
        value("--explain-categories", o.explain_categories,
              "KALLSYMS: print the category --explain gives each function of a kallsyms file (/proc/kallsyms, or "
              "a copy from another host) and the rule that decides it (a name rule, the function's source file, "
              "its module, or none: other kernel), then how many each kind of rule decides, and exit")
            .value_kind("FILE"),
        // Latency: chosen percentiles, every transaction kept.
        text(
            "--percentiles",
            "LIST: the rr round-trip percentiles to report, e.g. 50,99,99.99 (ascending, each above 0 and below "
            "100, at most " +
                std::to_string(kMaxPercentiles) +
                "); each is read from the latency histogram and "
                "given with its error: the histogram keeps 128 buckets per power of two, so a value is known to within "
                "half its bucket (at most +-0.4 %; exact below 256 ns). A 99.99th percentile needs 10000 transactions "
                "to rest on more than one sample",
            [&o](const std::string& t) { o.params.percentiles = parse_percentile_list(t); })
            .shows("50,90,99,99.9"),
        value("--samples", o.samples_file,
              "FILE: write every rr (crr, cc) transaction there as CSV, one line each (test,run,stream,start_ns,"
              "latency_ns; start_ns counts from the measured interval's start), for plotting or your own "
              "statistics. Kept in memory during the test (allocated before it: one per microsecond of -l per "
              "stream, at most " +
                  std::to_string(LatencySamples::kMaxPerStream) +
                  " per stream, 16 B each) and "
                  "written after it; a full buffer drops the rest and the report says how many were kept and dropped")
            .value_kind("FILE"),
        value("--histogram-log", o.histogram_log,
              "FILE: write each rr (crr, cc) test's round-trip histogram there as an HdrHistogram interval log "
              "(log format 1.3, compressed V2 histograms, values in ns): HdrHistogram's HistogramLogProcessor, "
              "hdr-plot and the hdrhistogram packages read it. zcperf's buckets are HdrHistogram's at 2 significant "
              "digits, so every count keeps its value range; one line per test (tagged with the test when the run "
              "has several)")
            .value_kind("FILE"),
        text(
            "--under-load",
            fmt::format("N[:TRANSPORT]: run N stream connections beside each rr (crr, cc) between the same two hosts, "
                        "over the test's transport or TRANSPORT (rr over {0} beside {1} streams: 1:{1}), started {2:g}",
                        example_rows().copy, example_rows().zerocopy, kLoadLeadS) +
                " s before the test's measured interval and stopped after it (sockperf's under-load mode); the "
                "report gives the test's latency beside the streams' throughput (counted by their receiver) and "
                "both sides' CPU. A list sweeps it: 0,1,4 runs each test alone, beside 1 and beside 4 (not with -i/-I)",
            [&o](const std::string& t) {
                auto [counts, transport] = parse_under_load(t);
                o.under_load_counts = counts;
                o.load.asked = true;
                o.load.transport = transport;
            })
            .value_kind("N[:T]"),
        text("--load-cpu", "LOCAL[,REMOTE]: pin --under-load's stream threads, same forms as --cpu",
             [&o](const std::string& t) {
                 parse_cpu_option(t, o.load.local_cpus, o.load.remote_cpus);
                 check_cpus_exist(o.load.local_cpus, allowed_cpus(), "available");
             }),
        text("-i,--iterations", "MAX,MIN repetitions of each test (netperf's -i; up to 30)",
             [&o, iterations_given](const std::string& t) {
                 auto [mx, mn] = parse_pair(t, "-i");
                 o.goal.max_iterations = static_cast<int>(mx);
                 o.goal.min_iterations = mn < 0 ? std::min(3, o.goal.max_iterations) : static_cast<int>(mn);
                 *iterations_given = true;
             }),
        text("-I,--confidence",
             "LEVEL,WIDTH: repeat until the LEVEL% confidence interval is narrower than WIDTH% (netperf's -I; "
             "default 99,5 with -i)",
             [&o, iterations_given](const std::string& t) {
                 auto [level, width] = parse_pair(t, "-I");
                 if (!*iterations_given) o.goal.max_iterations = 10, o.goal.min_iterations = 3;  // netperf's
                 o.goal.level_pct = level;
                 if (width != -1) o.goal.width_pct = width;  // given: checked by check_goal
             }),
        value_in("--invocations", o.invocations, Bounds<int>{1, 100},
                 "N: run every test's -i rounds N times over, each time a set-up of its own (fresh data connections, "
                 "buffers and threads; invocation k runs every test before k+1 starts); the JSON says which "
                 "invocation each round ran in, and zcperf compare takes its interval over the invocations"),
        value_in("--connect-timeout", o.connect_timeout_ms, Bounds<int>{100, 600000}, "milliseconds to reach a server"),
        value("--auth-key-file", o.auth_key_file,
              "shared key for a zcserver started with --auth-key-file (same file contents on both hosts)")
            .value_kind("FILE"),
        flag("--topology", o.topology,
             "print where CPUs, NICs and RDMA devices sit (NUMA node, PCI, IRQs) here and on each -H server, then "
             "exit"),
    };
}

}  // namespace

void parse_mem_node_option(const std::string& text, int& local, int& remote) {
    std::vector<int> l, r;
    parse_cpu_option(text, l, r);
    if (l.size() > 1 || r.size() > 1) throw std::invalid_argument("--mem-node takes one node per side: LOCAL[,REMOTE]");
    local = l.empty() ? -1 : l[0];
    remote = r.empty() ? -1 : r[0];
    auto nodes = numa_node_list();
    if (local >= 0 && std::find(nodes.begin(), nodes.end(), local) == nodes.end()) {
        throw std::invalid_argument("NUMA node " + std::to_string(local) + " does not exist here; the nodes are " +
                                    format_cpu_list(nodes));
    }
}

int parse_client_options(int argc, char** argv, ClientOptions& o, const CliProgram& program) {
    for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
    CLI::App app{program.description.empty() ? kDescription : program.description, program.name};
    app.footer(program.examples.empty() ? examples() : program.examples);
    app.set_version_flag("-V,--version", version_text(program.name.c_str()));
    OptionRows rows = client_rows(o, program);
    std::vector<GroupRows> groups;
    const KindOptionTargets to{o.params.kind_params, o.local.kind_params, o.remote.kind_params, o.params.kind_options};
    for (const auto* g : kind_option_groups()) {  // each kind's own, after zcperf's common rows
        OptionRows own = g->rows(to);
        const std::string section = std::string(g->title) + " (-T " + transport_names_where(g->takes) + ")";
        for (auto& r : own) r.group = section;
        groups.push_back({g, rows.size(), rows.size() + own.size()});
        rows.insert(rows.end(), std::make_move_iterator(own.begin()), std::make_move_iterator(own.end()));
    }
    rows.insert(rows.end(), program.rows.begin(), program.rows.end());
    return parse_rows(app, rows, argc, argv, [&] {
        // Rules over several options (each option's own range is its row's).
        // --batch: msgrate's (each row says whether it batches: spec_problem), and the streams of rows whose
        // stream senders batch too (their batch_tests).
        const bool batched = std::any_of(o.transports.begin(), o.transports.end(),
                                         [](Transport t) { return batches_streams(transport_info(t)); });
        if (o.params.batch != 1 && !batched &&
            std::find(o.tests.begin(), o.tests.end(), Workload::msgrate) == o.tests.end())
            throw std::invalid_argument(
                "--batch is for -t msgrate (messages per send call), and the stream tests of -T " +
                transport_names_where(batches_streams));
        check_interval(o);
        check_bidir(o);
        check_kind_options_taken(o, rows, groups);
        check_kind_option_groups(o);
        if (!o.explain_stacks.empty() && o.params.explain_hz == 0) o.params.explain_hz = kDefaultExplainHz;
        // With --explain, the sides send their stacks back for --explain-stacks, for --html's flame graphs and
        // into -o json (so `zcperf compare --html` can draw two saved runs' flame graphs).
        o.params.explain_stacks =
            !o.explain_stacks.empty() || (o.params.explain_hz > 0 && (!o.html.empty() || o.output.find("json") == 0));
        o.params.keep_samples = !o.samples_file.empty();
        if (o.params.keep_samples && std::none_of(o.tests.begin(), o.tests.end(), is_transaction_test))
            throw std::invalid_argument("--samples keeps rr, crr and cc transactions: add -t rr (or crr, cc)");
        if (!o.histogram_log.empty() && std::none_of(o.tests.begin(), o.tests.end(), is_transaction_test))
            throw std::invalid_argument("--histogram-log holds rr, crr and cc round trips: add -t rr (or crr, cc)");
        check_under_load(o);
        if (o.invocations > 1 && (o.bidir || !o.under_load_counts.empty()))
            throw std::invalid_argument("--invocations repeats plain tests: --bidir and --under-load run theirs once");
        check_tests(o);
        check_goal(o.goal);
        if (program.check) program.check(o);
    });
}

uint64_t default_message_size(Workload t, Transport tr) {
    const TransportInfo& row = transport_info(tr);  // UDP's rows carry their own (a datagram's size)
    if (t == Workload::msgrate && row.msgrate_size) return row.msgrate_size;
    if ((t == Workload::stream || t == Workload::maerts) && row.stream_size) return row.stream_size;
    switch (t) {
        case Workload::rr:
        case Workload::crr:
        case Workload::cc:
            return 1;
        case Workload::msgrate:
            return 2;
        default:
            return 1u << 20;
    }
}

std::vector<TestSpec> expand_tests(const ClientOptions& o) {
    std::vector<TestSpec> out;
    for (Transport tr : o.transports) {
        for (RxMode rx : o.rx_modes) {
            for (Workload t : o.tests) {
                std::vector<uint64_t> sizes =
                    o.sizes_given ? o.message_sizes : std::vector<uint64_t>{default_message_size(t, tr)};
                for (uint64_t size : sizes) {
                    TestSpec s{o.params, o.local, o.remote, o.load};
                    s.transport = tr;
                    s.rx = rx;
                    s.test = t;
                    s.message_size = size;
                    if (t != Workload::msgrate && !(transport_info(tr).batch_tests & bit(t))) s.batch = 1;
                    if (o.under_load_counts.empty()) out.push_back(s);
                    for (int load : o.under_load_counts) {
                        s.load.streams = load;
                        out.push_back(s);
                    }
                }
            }
        }
    }
    return out;
}

}  // namespace zc
