#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <iostream>

#include "cuda/device.hpp"
#include "run/build_info.hpp"
#include "protocol/interval.hpp"
#include "system/affinity.hpp"
#include "system/cpu_list.hpp"
#include "system/numa.hpp"
#include "paths/test_rules.hpp"
#include "core/pacer.hpp"
#include "core/units.hpp"

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
  zcperf -T tcp,tcp-sendfile,tcp-msgzc,tcp-uringzc -m 4K..4M --cpu 0,1
                                         copy vs zero-copy senders, each compared with the first (tcp);
                                         the report says how many bytes the kernel copied anyway
  zcperf -T tcp-msgzc --rx zerocopy      TCP_ZEROCOPY_RECEIVE on the receiver: mapped vs copied bytes
  zcperf -t rr --cpu 0,1                 1-byte request/response: round-trip time min/mean/p50/p90/p99/
                                         p99.9/max, one-way latency (RTT/2), transactions/s, us/Tran
  zcperf -t rr -m 1,64,4K..1M -l 5       a latency table by message size (scripts/latency_table.py
                                         runs several such and prints the ratio to a baseline)
  zcperf -t msgrate -P 2 --cpu 0+1,0+1   2-byte message rate, 2 threads each with its own connection
  zcperf -t msgrate --batch 16           16 messages per sendmmsg() call
  zcperf -T udp -b 1G -l 5               1472-byte UDP datagrams paced at 1 Gbit/s: loss, reordering,
                                         duplicates and jitter from the sequence numbers, beside the
                                         kernel's drop counts (SO_RXQ_OVFL, /proc/net/snmp)
  zcperf -T udp,udp-gso,udp-msgzc --gso-size 1472 --rx gro
                                         one datagram per call vs GSO (44 segments per call) vs GSO with
                                         MSG_ZEROCOPY, received with UDP_GRO's coalesced buffers
  zcperf -H 10.0.0.2 -T rdma-write,rdma-send,rsocket -m 64K,1M -l 5
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

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        size_t c = s.find(',', start);
        out.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
        if (c == std::string::npos) break;
        start = c + 1;
    }
    return out;
}

void check_cpus_exist(const std::vector<int>& cpus) {
    auto allowed = allowed_cpus();
    for (int c : cpus) {
        if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) {
            throw std::invalid_argument("local CPU " + std::to_string(c) +
                                        " is not available here; CPUs: " + format_cpu_list(allowed));
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

void parse_rdma_dev_option(const std::string& text, std::string& local, std::string& remote) {
    auto parts = split_commas(text);
    if (parts.size() > 2)
        throw std::invalid_argument("--rdma-dev takes LOCAL[,REMOTE] device names, e.g. mlx5_0,mlx5_1");
    for (const auto& p : parts) {
        if (p.size() > 64 || p.find_first_of(" /") != std::string::npos) {
            throw std::invalid_argument("--rdma-dev: '" + p + "' is not an RDMA device name (see ibv_devices)");
        }
    }
    local = parts[0];
    remote = parts.size() == 2 ? parts[1] : std::string();
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

// --batch (sendmmsg), -b (pacing) and --gso-size (UDP GSO): how a sender hands its data over.
void add_rate_options(CLI::App& app, ClientOptions& o, std::string& bitrate) {
    app.add_option("--batch", o.params.batch,
                   "msgrate, and udp's stream: messages (datagrams) per send call (sendmmsg), 1..1024")
        ->check(CLI::Range(1u, kMaxBatch))
        ->capture_default_str();
    app.add_option("-b,--bitrate", bitrate,
                   "the sender's rate in bits/s (iperf3's -b): 100M, 2.5G, 1k at least; the kernel paces where the "
                   "egress qdisc is fq (SO_MAX_PACING_RATE), else the sender's own clock; the report gives the rate "
                   "achieved and how. UDP without -b sends as fast as it can. stream, maerts, msgrate");
    app.add_option("--gso-size", o.params.gso_size,
                   "udp-gso, udp-msgzc: bytes per datagram the kernel (or the NIC) cuts each -m call into "
                   "(UDP_SEGMENT; at most the path MTU's payload, and -m at most 64 of them; default: the path MTU's "
                   "payload, 1472 on Ethernet)")
        ->check(CLI::Range(16u, 65507u));
}

void check_rate_options(ClientOptions& o, const std::string& bitrate) {
    const bool datagrams =
        std::any_of(o.transports.begin(), o.transports.end(), [](Transport t) { return transport_info(t).datagrams; });
    if (o.params.batch != 1 && !datagrams &&
        std::find(o.tests.begin(), o.tests.end(), TestKind::msgrate) == o.tests.end()) {
        throw std::invalid_argument("--batch is for -t msgrate (messages per send call), and udp's stream");
    }
    if (!bitrate.empty()) o.params.bitrate = parse_bitrate(bitrate);
}

int parse_client_options(int argc, char** argv, ClientOptions& o, const CliProgram& program) {
    for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
    CLI::App app{program.description.empty() ? kDescription : program.description, program.name};
    app.footer(program.examples.empty() ? kExamples : program.examples);
    std::string tests = "stream", transports = "tcp", rx = "copy", memnode, irqcpus, sizes = "1M", cpus, bytes, lsock,
                rsock, rcvlowat, iters, conf, align;
    std::string buffer, gpu_path, bitrate;
    bool json_stream = false;
    app.add_option(
        "-H,--host", o.servers,
        "zcserver to test against, HOST[:PORT]; repeat for several (default: an embedded server on loopback)");
    app.add_option("-p,--port", o.port, "control port for -H hosts given without one")->capture_default_str();
    app.add_option("-t,--test", tests,
                   "stream (client sends), maerts (server sends), rr (request/response latency: "
                   "one message each way per transaction) or msgrate (message rate); several: stream,maerts")
        ->capture_default_str();
    app.add_option("-T,--transport", transports,
                   "data path(s) of the sender, comma-separated; the first is the baseline others are compared with "
                   "(the rsocket and rdma-* ones need an RDMA device, and -H an address on it):" +
                       transport_help())
        ->capture_default_str();
    std::string cq_mode = "auto", rdma_dev;
    app.add_option("--cq-mode", cq_mode,
                   "RDMA verbs: how completions are taken: poll (busy-poll the CQ: lowest latency, a core of user "
                   "time), event (sleep on the completion channel: CPU only when work completes), or auto: the "
                   "passive side of a one-sided transfer (rdma-write's receiver, rdma-read's source) sleeps, as "
                   "perftest's does, and so does every side of a stream over a software device (rxe, siw: polling "
                   "takes the CPU the kernel moves the data with); every other side polls (rr: both); the report "
                   "says which ran on each side")
        ->capture_default_str();
    app.add_option("--tx-depth", o.params.rdma.tx_depth,
                   "RDMA: messages in flight per queue pair (send-queue depth and receive window; a ring slot each, "
                   "at most 64 MiB of slots per stream; msgrate keeps at least 512 receives posted)")
        ->capture_default_str();
    app.add_option("--postlist", o.params.rdma.postlist,
                   "RDMA verbs: work requests chained per ibv_post_send (fewer doorbells; msgrate's batching, as "
                   "--batch is TCP's; e.g. -t msgrate --postlist 8)")
        ->capture_default_str();
    app.add_option("--inline", o.params.rdma.inline_size,
                   "RDMA: send messages up to this many bytes inline in the work request (no DMA read of the "
                   "buffer; small messages only; 0 = never)")
        ->capture_default_str();
    app.add_option("--qps", o.params.rdma.qps,
                   "RDMA verbs: queue pairs per stream, served round-robin by the stream's thread")
        ->capture_default_str();
    app.add_option("--qps-per-context", o.params.rdma.qps_per_context,
                   "RDMA verbs: K streams (threads) share one device context and PD that zcperf opens itself "
                   "(ibv_open_device per K streams, QPs moved by hand with rdma_cm's attributes); 0 = all streams on "
                   "rdma_cm's one context, a PD each. E.g. -t msgrate -P 4 --qps-per-context 2: 2 contexts")
        ->capture_default_str();
    app.add_flag("--thread-domains", o.params.rdma.thread_domains,
                 "RDMA verbs: each stream's thread gets a thread domain (ibv_alloc_td) and a parent domain over its "
                 "PD, and makes its CQ and QPs there, so the provider may give it a doorbell register of its own "
                 "and skip its locks (mlx5); with --qps-per-context K too. A provider without them (Soft-RoCE) is "
                 "an error naming the call it refused; the report's rdma line says it was in force");
    app.add_option("--rdma-dev", rdma_dev,
                   "RDMA: LOCAL[,REMOTE] device the data must use (e.g. mlx5_0); by default the one the route to the "
                   "peer goes through; a mismatch is an error, never a silent change");
    app.add_option("--rx", rx,
                   "how the receiver takes the data, comma-separated for several: copy (recv), zerocopy "
                   "(TCP_ZEROCOPY_RECEIVE), splice (into a pipe, discarded), trunc (MSG_TRUNC, discarded); UDP: copy "
                   "(a datagram per recvmsg), mmsg (recvmmsg, 64 per call), gro (UDP_GRO: coalesced datagrams)")
        ->capture_default_str();
    app.add_flag("--uring-fixed", o.params.uring_fixed, "tcp-uringzc: register the send buffers with io_uring");
    auto* mopt =
        app.add_option("-m,--message-size", sizes,
                       "bytes per send/recv call (rr, msgrate: per message, 1 B..1G): 64K, a list 64K,1M, or a "
                       "doubling range 64K..4M; each size is one result (default: 1M; rr 1; msgrate 2)");
    add_rate_options(app, o, bitrate);
    // The verbs message-rate knobs (--postlist, --qps-per-context, --inline) belong beside --batch:
    // they travel in the spec like batch and are checked by spec_problem() (paths/test_rules.hpp).
    auto* dur = app.add_option("-l,--duration", o.params.duration_s,
                               "seconds of data transfer per test (>= 5 for trustworthy CPU figures)")
                    ->check(CLI::Range(0.01, 86400.0))
                    ->capture_default_str();
    app.add_option("-n,--bytes", bytes, "move exactly this many bytes instead (e.g. 10G), split over the streams")
        ->excludes(dur);
    app.add_option("-P,--streams", o.params.streams, "parallel streams, one thread per stream on each side")
        ->check(CLI::Range(1, kMaxStreams))
        ->capture_default_str();
    app.add_option("--rcvlowat", rcvlowat,
                   "stream tests over TCP: the receiver sleeps until this many bytes are queued (SO_RCVLOWAT), "
                   "so the sending CPU pays fewer wake-ups; 1 = the kernel's default, a wake-up per segment "
                   "(default 256K; capped by the kernel at half the receive buffer; the report shows what ran)");
    app.add_option("-s,--local-sockbuf", lsock, "local SO_SNDBUF/SO_RCVBUF (e.g. 4M; default: kernel autotuning)");
    app.add_option("-S,--remote-sockbuf", rsock, "remote SO_SNDBUF/SO_RCVBUF");
    app.add_option(
        "--cpu", cpus,
        "pin data threads: LOCAL[,REMOTE], each a CPU, a range 0-3 or a list 0+2 (round-robin over streams)");
    app.add_option("--mem-node", memnode,
                   "NUMA node of the data buffers: LOCAL[,REMOTE] (libnuma); where the pages "
                   "really are is read back and reported");
    app.add_option("--irq-cpus", irqcpus,
                   "move the data device's IRQs to these CPUs for each test: LOCAL[,REMOTE], "
                   "same forms as --cpu; put back afterwards (needs root; the server needs --allow-irq-affinity)");
    app.add_option("--buffer", buffer,
                   "memory of the data buffers: LOCAL[,REMOTE], each host (pageable), pinned (cudaHostAlloc) or "
                   "cuda[:N] (GPU memory: staged through pinned bounce buffers over tcp and rsocket; direct or staged "
                   "over rdma-write/-send/-read, see --gpu-path); one value sets the local side only, like --cpu: "
                   "cuda:0,cuda:0 for GPU to GPU. stream, maerts and rr (tcp); msgrate uses host memory");
    app.add_option("--gpu-path", gpu_path,
                   "how GPU memory meets the network: staged (pinned bounce buffers, any transport), direct (the NIC "
                   "DMAs GPU memory: GPUDirect RDMA, ibv_reg_dmabuf_mr on rdma-write/-send/-read; an error where "
                   "refused, and on tcp/rsocket), auto (default: direct where registration succeeds, else staged; "
                   "the report's memory line says which ran and why); MODE or LOCAL,REMOTE");
    app.add_flag("--gpu-copy-bandwidth", o.gpu_copy_bandwidth,
                 "measure cudaMemcpy's pinned and pageable host<->GPU bandwidth on each local GPU (the staged "
                 "path's ceiling), then exit");
    app.add_option("--align", align, "buffer alignment in bytes, a power of two")->default_str("4096");
    auto* out_opt = app.add_option("-o,--output", o.output, "report format: human, csv or json")
                        ->check(CLI::IsMember({"human", "csv", "json"}))
                        ->capture_default_str();
    app.add_option("-D,--interval", o.params.interval_s,
                   "SECS: both sides sample their counters and CPU every SECS seconds as the test runs (0.01 up to "
                   "the test's -l; netperf's demo mode): the human report prints a line per interval (Gb/s, each "
                   "side's CPU% and service demand; rr: transactions/s and the interval's p50/p99 RTT; msgrate: "
                   "messages/s; STALL where nothing moved), JSON gains \"intervals\" (they add up to the result's "
                   "bytes exactly); default: off");
    app.add_flag("--json-stream", json_stream,
                 "print one JSON object per line as things happen (start, each interval, each result, end), "
                 "flushed at once: for live dashboards and log pipelines (instead of -o)")
        ->excludes(out_opt);
    app.add_option("--csv-intervals", o.csv_intervals,
                   "FILE: also write one CSV row per interval there as the test runs (needs --interval)");
    app.add_option("-i,--iterations", iters, "MAX,MIN repetitions of each test (netperf's -i; up to 30)");
    app.add_option("-I,--confidence", conf,
                   "LEVEL,WIDTH: repeat until the LEVEL% confidence interval is narrower than WIDTH% (netperf's -I; "
                   "default 99,5 with -i)");
    app.add_option("--connect-timeout", o.connect_timeout_ms, "milliseconds to reach a server")
        ->check(CLI::Range(100, 600000))
        ->capture_default_str();
    app.add_option("--auth-key-file", o.auth_key_file,
                   "shared key for a zcserver started with --auth-key-file (same file contents on both hosts)");
    app.add_flag("--topology", o.topology,
                 "print where CPUs, NICs and RDMA devices sit (NUMA node, PCI, IRQs) "
                 "here and on each -H server, then exit");
    if (program.add_options) program.add_options(app);
    app.set_version_flag("-V,--version", version_text(program.name.c_str()));
    try {
        app.parse(argc, argv);
        o.tests.clear();
        for (const auto& t : split_commas(tests)) o.tests.push_back(test_from_name(t));
        o.transports.clear();
        for (const auto& t : split_commas(transports)) o.transports.push_back(transport_from_name(t));
        o.params.rdma.cq_mode = cq_mode_from_name(cq_mode);
        check_rdma_options(o.params.rdma);
        if (!rdma_dev.empty()) parse_rdma_dev_option(rdma_dev, o.local.rdma_dev, o.remote.rdma_dev);
        o.rx_modes.clear();
        for (const auto& m : split_commas(rx)) o.rx_modes.push_back(rx_mode_from_name(m));
        o.sizes_given = mopt->count() > 0;
        o.message_sizes = parse_size_list(sizes);
        for (uint64_t s : o.message_sizes) {
            if (s == 0 || s > kMaxMessageSize)
                throw std::invalid_argument("message size " + std::to_string(s) + " must be 1 B..1G");
        }
        if (!bytes.empty()) {
            o.params.total_bytes = parse_size(bytes);
            if (o.params.total_bytes == 0) throw std::invalid_argument("-n must be more than 0 bytes");
        }
        check_rate_options(o, bitrate);
        if (!rcvlowat.empty()) {
            o.params.rcv_lowat = parse_size(rcvlowat);
            if (o.params.rcv_lowat < 1 || o.params.rcv_lowat > kMaxSocketBuffer) {
                throw std::invalid_argument("--rcvlowat must be 1..1G bytes (1 = the kernel's default)");
            }
        }
        if (!lsock.empty()) o.local.socket_buffer = parse_size(lsock);
        if (!rsock.empty()) o.remote.socket_buffer = parse_size(rsock);
        if (o.local.socket_buffer > kMaxSocketBuffer || o.remote.socket_buffer > kMaxSocketBuffer) {
            throw std::invalid_argument("socket buffers are limited to 1G");
        }
        if (!cpus.empty()) parse_cpu_option(cpus, o.local.cpus, o.remote.cpus);
        check_cpus_exist(o.local.cpus);
        if (!irqcpus.empty()) {
            parse_cpu_option(irqcpus, o.local.irq_cpus, o.remote.irq_cpus);
            check_cpus_exist(o.local.irq_cpus);
        }
        if (!memnode.empty()) {
            std::vector<int> l, r;
            parse_cpu_option(memnode, l, r);
            if (l.size() > 1 || r.size() > 1)
                throw std::invalid_argument("--mem-node takes one node per side: LOCAL[,REMOTE]");
            o.local.mem_node = l.empty() ? -1 : l[0];
            o.remote.mem_node = r.empty() ? -1 : r[0];
            auto nodes = numa_node_list();
            if (o.local.mem_node >= 0 && std::find(nodes.begin(), nodes.end(), o.local.mem_node) == nodes.end()) {
                throw std::invalid_argument("NUMA node " + std::to_string(o.local.mem_node) +
                                            " does not exist here; the nodes are " + format_cpu_list(nodes));
            }
        }
        if (!align.empty()) {
            o.params.alignment = parse_size(align);
            if (o.params.alignment == 0 || (o.params.alignment & (o.params.alignment - 1)) ||
                o.params.alignment > kMaxAlignment) {
                throw std::invalid_argument("--align must be a power of two up to 2M");
            }
        }
        if (json_stream) o.output = "json-stream";
        check_interval(o);
        if (!buffer.empty()) parse_buffer_option(buffer, o.local.buffer, o.remote.buffer);
        if (!gpu_path.empty()) parse_gpu_path_option(gpu_path, o.local.gpu_path, o.remote.gpu_path);
        for (const BufferSpec* b : {&o.local.buffer, &o.remote.buffer}) {
            if (b->per_local_rank() && !program.per_rank) {
                throw std::invalid_argument("--buffer " + buffer_spec_name(*b) +
                                            " chooses the GPU by MPI local rank: it is zcperf-mpi's; here give "
                                            "a device, e.g. cuda:0");
            }
        }
        check_tests(o);
        if (!iters.empty() || !conf.empty()) {
            o.goal = ConfidenceGoal{10, 3, 99, 5};
            if (!iters.empty()) {
                auto [mx, mn] = parse_pair(iters, "-i");
                o.goal.max_iterations = static_cast<int>(mx);
                o.goal.min_iterations = mn < 0 ? std::min(3, o.goal.max_iterations) : static_cast<int>(mn);
            }
            if (!conf.empty()) {
                auto [lvl, width] = parse_pair(conf, "-I");
                o.goal.level_pct = lvl;
                if (width != -1) o.goal.width_pct = width;  // given: checked below
            }
            if (o.goal.max_iterations < 1 || o.goal.max_iterations > 30 || o.goal.min_iterations < 1 ||
                o.goal.min_iterations > o.goal.max_iterations) {
                throw std::invalid_argument("-i MAX,MIN needs 1 <= MIN <= MAX <= 30");
            }
            if (o.goal.level_pct < 50 || o.goal.level_pct >= 100 || o.goal.width_pct <= 0) {
                throw std::invalid_argument("-I LEVEL,WIDTH needs 50 <= LEVEL < 100 and WIDTH > 0 (percent)");
            }
        }
        if (program.check) program.check(o);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << program.name << ": " << e.what() << "\nRun '" << program.name
                  << " --help' for the options and examples.\n";
        return 2;
    }
    return -1;
}

uint64_t default_message_size(TestKind t, Transport tr) {
    const TransportInfo& row = transport_info(tr);  // UDP's rows carry their own (a datagram's size)
    if (t == TestKind::msgrate && row.msgrate_size) return row.msgrate_size;
    if ((t == TestKind::stream || t == TestKind::maerts) && row.stream_size) return row.stream_size;
    switch (t) {
        case TestKind::rr:
            return 1;
        case TestKind::msgrate:
            return 2;
        default:
            return 1u << 20;
    }
}

std::vector<TestSpec> expand_tests(const ClientOptions& o) {
    std::vector<TestSpec> out;
    for (Transport tr : o.transports) {
        for (RxMode rx : o.rx_modes) {
            for (TestKind t : o.tests) {
                std::vector<uint64_t> sizes =
                    o.sizes_given ? o.message_sizes : std::vector<uint64_t>{default_message_size(t, tr)};
                for (uint64_t size : sizes) {
                    TestSpec s{o.params, o.local, o.remote};
                    s.transport = tr;
                    s.rx = rx;
                    s.test = t;
                    s.message_size = size;
                    if (t != TestKind::msgrate && !transport_info(tr).datagrams) s.batch = 1;
                    out.push_back(s);
                }
            }
        }
    }
    return out;
}

}  // namespace zc
