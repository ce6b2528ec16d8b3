#include "run/side_runner.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fmt/format.h>
#include <cstring>
#include <set>
#include <memory>
#include <stdexcept>

#include "measure/cpu_meter.hpp"
#include "measure/proc_stat.hpp"
#include "memory/host_buffer.hpp"
#include "run/gpu_placement.hpp"
#include "system/affinity.hpp"
#include "system/numa.hpp"
#include "system/topology.hpp"
#include "paths/data_setup.hpp"
#include "paths/stream_path.hpp"
#include "protocol/messages.hpp"
#include "system/cpu_list.hpp"

namespace zc {

namespace {

double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; }

}  // namespace

void SideRunner::report_interrupts(Placement& p) const {
    if (irqs_.empty()) return;
    auto after = read_proc_interrupts();
    for (int irq : irqs_) {
        IrqReport r;
        r.irq = irq;
        auto a = after.find(irq);
        auto b = irq_counts_before_.find(irq);
        if (a == after.end()) continue;
        r.name = a->second.name;
        r.affinity = read_irq_affinity(irq);
        r.affinity_before = irq_guard_ ? irq_guard_->originals().at(irq) : r.affinity;
        for (size_t c = 0; c < a->second.per_cpu.size(); ++c) {
            uint64_t was = (b != irq_counts_before_.end() && c < b->second.per_cpu.size()) ? b->second.per_cpu[c] : 0;
            r.per_cpu.push_back(a->second.per_cpu[c] - std::min(was, a->second.per_cpu[c]));
            r.interrupts += r.per_cpu.back();
        }
        p.irqs.push_back(std::move(r));
    }
}

void SideRunner::note_placement_mismatches(SideResult& r) const {
    Topology topo = read_topology();
    std::set<int> cpu_nodes;
    for (int cpu : r.cpus) {
        int node = node_of_cpu(topo, cpu);
        r.placement.cpu_nodes.push_back(node);
        if (node >= 0) cpu_nodes.insert(node);
    }
    const Placement& p = r.placement;
    if (cfg_.half.side.mem_node >= 0) {
        uint64_t off = 0;
        for (const auto& [node, pages] : p.buffer_pages_by_node) off += node == cfg_.half.side.mem_node ? 0 : pages;
        if (off > 0)
            r.warnings.push_back(std::to_string(off) + " buffer pages are not on the requested NUMA node " +
                                 std::to_string(cfg_.half.side.mem_node));
    }
    for (const auto& [node, pages] : p.buffer_pages_by_node) {
        if (!cpu_nodes.empty() && !cpu_nodes.count(node)) {
            r.warnings.push_back(
                "buffer pages on NUMA node " + std::to_string(node) + " but the data threads run on node(s) " +
                format_cpu_list({cpu_nodes.begin(), cpu_nodes.end()}) + ": every byte crosses the interconnect");
        }
    }
    if (p.device_numa_node >= 0 && !cpu_nodes.empty() && !cpu_nodes.count(p.device_numa_node)) {
        r.warnings.push_back(p.interface + " sits on NUMA node " + std::to_string(p.device_numa_node) +
                             " but the data threads run on node(s) " +
                             format_cpu_list({cpu_nodes.begin(), cpu_nodes.end()}));
    }
    note_gpu_placement(p, cpu_nodes, r.warnings);
}

namespace {
std::vector<DataConnection> as_connections(std::vector<UniqueFd> fds) {
    std::vector<DataConnection> out;
    for (auto& fd : fds) out.emplace_back(std::move(fd));
    return out;
}
}  // namespace

SideRunner::SideRunner(SideConfig config, std::vector<UniqueFd> fds)
    : SideRunner(std::move(config), as_connections(std::move(fds))) {}

SideRunner::SideRunner(SideConfig config, std::vector<DataConnection> fds)
    : cfg_(std::move(config)),
      streams_(fds.size()),
      ready_(static_cast<std::ptrdiff_t>(fds.size())),
      go_(1),
      running_(static_cast<int>(fds.size())),
      meter_(cfg_.exclude_pids) {
    stop_base_.abort = &abort_;
    if (cfg_.program.empty()) cfg_.program = program_invocation_short_name;
    for (size_t i = 0; i < fds.size(); ++i) {
        Stream& s = streams_[i];
        s.conn = std::move(fds[i]);
        s.cpu = cfg_.half.side.cpus.empty() ? -1 : cfg_.half.side.cpus[i % cfg_.half.side.cpus.size()];
    }
    place_interrupts();  // finds the IRQs; move_irqs() moves them
    place_gpu(placement_, cfg_.half.side.buffer);
    if (cfg_.half.explain_hz > 0)
        explainer_ = std::make_unique<SideExplainer>(cfg_.half.explain_hz, cfg_.half.explain_stacks, cfg_.exclude_pids);
    for (size_t i = 0; i < streams_.size(); ++i) {
        streams_[i].thread = std::thread([this, i] { run_stream(streams_[i], static_cast<int>(i)); });
    }
}

SideRunner::~SideRunner() {
    if (!joined_) abort();  // a run that finish() did not see through: the peer or the user ended it
    if (!started_) go_.count_down();
    for (auto& s : streams_)
        if (s.thread.joinable()) s.thread.join();
    stop_sampler();
}

namespace {
int64_t clock_ns(clockid_t c) {
    timespec ts{};
    if (clock_gettime(c, &ts) != 0) return -1;
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

IntervalReading SideRunner::read_totals() const {
    IntervalReading r;
    r.t_s = static_cast<double>(monotonic_ns() - started_ns_) * 1e-9;
    bool msgrate = cfg_.half.test == Workload::msgrate;  // its loops count whole messages only at the end
    for (const Stream& s : streams_) {
        uint64_t bytes = joined_ ? s.counters.bytes : s.live.bytes.load(std::memory_order_relaxed);
        r.bytes += bytes;
        r.messages += joined_   ? s.counters.messages
                      : msgrate ? bytes / cfg_.half.message_size
                                : s.live.messages.load(std::memory_order_relaxed);
        // A thread that has ended left its last reading; its clock id may no longer name it.
        int64_t now = s.cpu_end_ns.load(std::memory_order_acquire);
        if (now < 0 && s.cpu_base_ns >= 0) now = clock_ns(s.cpu_clock);
        if (s.cpu_base_ns >= 0 && now >= s.cpu_base_ns)
            r.thread_cpu_s += static_cast<double>(now - s.cpu_base_ns) * 1e-9;
        if (s.rtt.prepared()) r.rtt.merge(joined_ ? s.rtt : s.rtt.snapshot());
        r.kind_readings.push_back(interval_reading_of(cfg_.half, s.conn));
    }
    r.stat = read_proc_stat();
    return r;
}

void SideRunner::register_on_host() {
    ConcurrentTestEntry me{
        cfg_.program,   ::getpid(),
        cfg_.peer,      std::string(transport_name(cfg_.half.transport)) + " " + workload_name(cfg_.half.test),
        cfg_.token,     cfg_.half.side.cpus,
        wall_clock_s(), 0};
    started_wall_s_ = me.start_s;
    try {
        host_record_ = std::make_unique<ConcurrentTestRecord>(std::move(me));
    } catch (const std::exception& e) {
        host_record_problem_ = e.what();
    }
}

void SideRunner::emit(const IntervalReading& now, int64_t edge) {
    SideInterval s = interval_between(last_reading_, now, static_cast<uint32_t>(last_edge_), sysconf(_SC_CLK_TCK));
    read_interval_block(cfg_.half, last_reading_.kind_readings, now.kind_readings, s.duration_s(), s.kinds);
    if (host_record_) {
        s.shared_tests =
            static_cast<uint32_t>(tests_overlapping(host_record_->dir(), cfg_.token, started_wall_s_ + s.start_s,
                                                    started_wall_s_ + s.end_s, wall_clock_s())
                                      .size());
    }
    last_reading_ = now;
    last_edge_ = edge;
    ++intervals_sent_;
    if (cfg_.on_interval) cfg_.on_interval(s);
}

void SideRunner::sample_intervals() {
    const double every = cfg_.half.interval_s;
    // A timed test's data stops at its -l: an edge within a quarter interval of it would leave a sliver
    // of an interval (a few ms, its rates all noise), so that edge is left out and its neighbour runs on.
    const double deadline = cfg_.half.total_bytes > 0 ? -1 : cfg_.half.duration_s;
    std::unique_lock lock(sampler_mu_);
    for (int64_t k = 1;; ++k) {
        double edge = static_cast<double>(k) * every;
        if (deadline > 0 && std::abs(edge - deadline) < every / 4) continue;
        auto when = std::chrono::steady_clock::time_point(
            std::chrono::nanoseconds(started_ns_ + static_cast<int64_t>(edge * 1e9)));
        if (sampler_cv_.wait_until(lock, when, [&] { return sampler_stop_; })) return;
        if (running_.load() == 0) return;  // the streams are done: finish() closes the last interval
        IntervalReading now = read_totals();
        // Woken late (this process was stopped, or starved of CPU): the edges already past are skipped,
        // so the late interval is one long one, not a burst of empty slivers, and the next one is
        // numbered by the edge it starts after, as the other side numbers its own.
        k = std::max(k, static_cast<int64_t>(std::floor(now.t_s / every)));
        emit(now, k);
    }
}

void SideRunner::stop_sampler() {
    if (!sampler_.joinable()) return;
    {
        std::lock_guard lock(sampler_mu_);
        sampler_stop_ = true;
    }
    sampler_cv_.notify_all();
    sampler_.join();
}

void SideRunner::place_interrupts() {
    placement_.mem_node = cfg_.half.side.mem_node;
    std::string address = streams_.empty() ? std::string() : local_address_of(cfg_.half.transport, streams_[0].conn);
    if (address.empty()) return;
    placement_.interface = interface_of_address(address);
    DeviceLocality dev = interface_locality(placement_.interface);
    placement_.pci = dev.pci;
    placement_.device_numa_node = dev.numa_node;
    irq_counts_before_ = read_proc_interrupts();
    irqs_ = device_irqs("net", placement_.interface, irq_counts_before_);
    if (irqs_.empty()) {
        placement_.irq_note = placement_.interface.empty()
                                  ? "the data's network device was not found: no IRQs reported"
                                  : placement_.interface +
                                        " is a virtual device (loopback, veth): it has no IRQs of its own" +
                                        (cfg_.half.side.irq_cpus.empty() ? "" : ", so --irq-cpus changed nothing");
    }
}

void SideRunner::move_irqs() {
    if (irqs_moved_) return;
    irqs_moved_ = true;
    if (!irqs_.empty() && !cfg_.half.side.irq_cpus.empty()) {
        IrqClaim claim{cfg_.program, cfg_.peer, cfg_.half.irq_wait_s, "", cfg_.on_irq_wait};
        irq_guard_ = std::make_unique<IrqAffinityGuard>(irqs_, cfg_.half.side.irq_cpus, claim);
        if (irq_guard_->waited_s() >= 0.1)
            cfg_.notes.push_back(
                fmt::format("waited {:.1f} s for another test on this host to let go of the IRQs "
                            "(--irq-wait)",
                            irq_guard_->waited_s()));
    }
}

void SideRunner::run_stream(Stream& s, int index) {
    // Everything a path needs (pinning, buffers, memfd, io_uring, mappings) is set up here, before
    // the start barrier, so none of it lands in the measured interval.
    StreamLoop path;
    try {
        if (s.cpu >= 0) pin_current_thread(s.cpu);
        if (cfg_.half.side.mem_node >= 0)
            bind_thread_memory(cfg_.half.side.mem_node);  // the policy ends with the thread
        make_stream_path(path, cfg_.half, cfg_.role, s.conn, s.rtt);
        if (cfg_.half.keep_samples && s.rtt.prepared()) {  // the initiator's loop records into s.rtt
            s.samples = std::make_shared<LatencySamples>(
                LatencySamples::capacity_for(cfg_.half.total_bytes > 0 ? 0 : cfg_.half.duration_s));
            s.rtt.keep_samples(s.samples.get());
        }
        if (const HostBuffer* buffer = path.buffer()) s.buffer_nodes = page_nodes(buffer->data(), buffer->size());
    } catch (const std::exception& e) {
        s.setup_error = e.what();
    }
    ready_.count_down();
    go_.wait();
    if (!s.setup_error.empty() || abort_.load()) {
        running_.fetch_sub(1);
        return;
    }
    StopRule stop = stop_base_;
    if (cfg_.half.interval_s > 0) stop.live = &s.live;
    if (cfg_.half.total_bytes > 0) {
        stop.byte_budget = stream_share(cfg_.half.total_bytes, static_cast<int>(streams_.size()), index);
        if (stop.byte_budget == 0) stop.deadline_ns = 0;  // more streams than bytes: this one ends at once
    }
    rusage r0{}, r1{};
    getrusage(RUSAGE_THREAD, &r0);
    s.counters = path.run(stop);
    s.loop_end_ns = monotonic_ns();
    s.kind_counts = kind_counts_of(cfg_.half.transport, path);
    s.connect = connect_latency_of(cfg_.half.transport, path);
    s.longest_wait_ns = stop.longest_wait_ns;
    stop.add_pacing(s.counters);
    s.longest_wait_end_ns = stop.longest_wait_end_ns;
    getrusage(RUSAGE_THREAD, &r1);
    s.user_s = seconds(r1.ru_utime) - seconds(r0.ru_utime);
    s.sys_s = seconds(r1.ru_stime) - seconds(r0.ru_stime);
    s.ran_on = current_cpu();
    s.cpu_end_ns.store(clock_ns(CLOCK_THREAD_CPUTIME_ID), std::memory_order_release);
    running_.fetch_sub(1);
}

void SideRunner::wait_ready() {
    ready_.wait();
    for (size_t i = 0; i < streams_.size(); ++i) {
        if (!streams_[i].setup_error.empty()) {
            throw std::runtime_error("stream " + std::to_string(i) + ": " + streams_[i].setup_error);
        }
    }
}

void SideRunner::start(const std::function<void()>& started) {
    wait_ready();
    move_irqs();
    if (!irqs_.empty()) irq_counts_before_ = read_proc_interrupts();
    register_on_host();
    for (auto& s : streams_) s.kind_start = kind_reading_of(cfg_.half, s.conn);
    meter_.start();
    if (explainer_) explainer_->start();
    started_ns_ = monotonic_ns();
    for (auto& s : streams_)
        if (s.samples) s.samples->start_at(started_ns_);  // the stream waits at go_: no race
    stop_base_.deadline_ns = started_ns_ + static_cast<int64_t>(cfg_.half.duration_s * 1e9);
    if (cfg_.role == Role::send && cfg_.half.bitrate) {  // the rules let -b through only where a sender paces
        stop_base_.pacer = Pacer(cfg_.half.bitrate);
        stop_base_.pacer.start(started_ns_);
    }
    started_ = true;
    if (cfg_.half.interval_s > 0) {
        // Every stream thread is alive (waiting at go_), so its CPU clock can be named now.
        for (auto& s : streams_) {
            s.cpu_base_ns =
                pthread_getcpuclockid(s.thread.native_handle(), &s.cpu_clock) == 0 ? clock_ns(s.cpu_clock) : -1;
        }
        last_reading_ = read_totals();
        last_reading_.t_s = 0;
    }
    go_.count_down();  // the latch orders stop_base_ before every thread's read of it
    if (started) started();
    if (cfg_.half.interval_s > 0) sampler_ = std::thread([this] { sample_intervals(); });
}

std::string SideRunner::failure() const {
    if (abort_.load()) return "";
    for (size_t i = 0; i < streams_.size(); ++i) {
        const StreamCounters& c = streams_[i].counters;
        if (!c.error) continue;
        // A call name gets "()"; a phrase (an RDMA completion status) is quoted as it is.
        bool call = std::strchr(c.failed_call, ' ') == nullptr;
        std::string why = "stream " + std::to_string(i) + ": " + c.failed_call + (call ? "() failed: " : ": ") +
                          std::strerror(c.error);
        if (c.error == EPIPE || c.error == ECONNRESET) why += " (the peer went away)";
        if (c.error == EAGAIN) why += " (no data for too long: is the peer stalled?)";
        if (c.error == EADDRNOTAVAIL)  // crr, cc: each transaction takes an ephemeral port
            why +=
                " (out of ephemeral ports: closed connections' ports wait in TIME_WAIT; use --crr-close "
                "rst, or widen net.ipv4.ip_local_port_range)";
        return why;
    }
    return "";
}

void SideRunner::abort() {
    abort_.store(true);
    for (auto& s : streams_) interrupt(s.conn);  // wakes a thread blocked in send/recv; close waits for join
}

std::vector<DataConnection> SideRunner::release_connections() {
    if (!joined_) throw std::logic_error("SideRunner::release_connections before finish");
    std::vector<DataConnection> conns;
    for (auto& s : streams_) conns.push_back(std::move(s.conn));
    return conns;
}

SideResult SideRunner::finish() {
    if (!started_) throw std::logic_error("SideRunner::finish before start");
    for (auto& s : streams_)
        if (s.thread.joinable()) s.thread.join();
    stop_sampler();  // before joined_ changes what read_totals reads
    joined_ = true;
    SideResult r;
    r.cpu = meter_.stop([this] {
        if (explainer_) explainer_->stop();  // the same edge as the last /proc/stat reading
    });
    if (cfg_.half.interval_s > 0 && !abort_.load()) {
        // The last interval: from the last edge to the end, counted from the loops' final totals, so
        // the intervals add up to this result exactly. A sliver after the last edge in which nothing
        // moved (the streams ended just as it was read) is no interval of its own.
        IntervalReading end = read_totals();
        end.t_s = r.cpu.elapsed_s;
        bool sliver = end.bytes == last_reading_.bytes && end.messages == last_reading_.messages &&
                      end.t_s - last_reading_.t_s < cfg_.half.interval_s / 2;
        if (!sliver || intervals_sent_ == 0) emit(end, last_edge_);
    }
    r.placement = placement_;
    report_interrupts(r.placement);
    r.host = cfg_.host;
    r.role = cfg_.role;
    r.elapsed_s = r.cpu.elapsed_s;
    int64_t loops_end = 0;
    for (const Stream& s : streams_) loops_end = std::max(loops_end, s.loop_end_ns);
    if (loops_end > started_ns_) r.loops_s = std::min(r.elapsed_s, static_cast<double>(loops_end - started_ns_) * 1e-9);
    r.path = path_name(cfg_.half, cfg_.role);
    StreamCounters total;
    const std::string first_error = failure();
    for (size_t i = 0; i < streams_.size(); ++i) {
        const Stream& s = streams_[i];
        total.bytes += s.counters.bytes;
        total.ops += s.counters.ops;
        total.zerocopy.add(s.counters.zerocopy);
        total.staging.add(s.counters.staging);
        r.stream_bytes.push_back(s.counters.bytes);
        r.pacing.counts.add(s.counters.pacing);
        r.cpus.push_back(s.ran_on);
        for (const auto& [node, pages] : s.buffer_nodes) r.placement.buffer_pages_by_node[node] += pages;
        r.process_user_s += s.user_s;
        r.process_sys_s += s.sys_s;
        if (is_message_test(cfg_.half.test)) r.messages.add_stream(s.counters.messages, s.counters.segments, s.rtt);
        if (s.samples) r.messages.samples.push_back(s.samples);
        r.messages.connect.merge(s.connect);
        if (s.longest_wait_ns > 0 && s.longest_wait_ns * 1e-9 > r.longest_call_s) {
            r.longest_call_s = s.longest_wait_ns * 1e-9;
            r.longest_call_end_s = (s.longest_wait_end_ns - started_ns_) * 1e-9;
        }
    }
    r.bytes = total.bytes;
    r.ops = total.ops;
    r.zerocopy = total.zerocopy;
    r.pacing.bitrate = cfg_.half.bitrate;
    r.memory = memory_report(cfg_.half.side, cfg_.half.message_size, total.staging);
    if (!streams_.empty()) read_back_settings(cfg_.half, cfg_.role, streams_[0].conn, r);
    std::vector<KindStream> kind_streams;
    for (const Stream& s : streams_) kind_streams.push_back({&s.conn, &s.counters, &s.kind_counts, &s.kind_start});
    read_kind_block(cfg_.half, cfg_.role, kind_streams, r);
    note_placement_mismatches(r);
    if (explainer_) r.explain = explainer_->finish(r.cpu);
    r.warnings.insert(r.warnings.end(), cfg_.notes.begin(), cfg_.notes.end());
    note_concurrent_tests(r);
    if (abort_.load()) throw std::runtime_error(kStoppedMidTest);
    if (!first_error.empty()) throw std::runtime_error(first_error);
    if (r.elapsed_s < 5.0) {
        r.warnings.push_back(
            "measured interval under 5 s: CPU figures come from the kernel's tick sampling "
            "(1/" +
            std::to_string(sysconf(_SC_CLK_TCK)) + " s units), so use -l 5 or more for CPU figures you can trust");
    }
    return r;
}

void SideRunner::note_concurrent_tests(SideResult& r) {
    if (!host_record_) {
        r.warnings.push_back("other tests on this host cannot be seen (" + host_record_problem_ +
                             "): the whole-host CPU figures may count theirs");
        return;
    }
    r.shared_with = host_record_->overlapping(started_wall_s_ + r.elapsed_s);
    host_record_->end(started_wall_s_ + r.elapsed_s);
    constexpr size_t kMaxSharedWith = 64;         // the wire's bound on shared_with (protocol/result.cpp)
    if (r.shared_with.size() > kMaxSharedWith) {  // a busy zcserver (fifty clients): name the longest overlaps
        std::stable_sort(r.shared_with.begin(), r.shared_with.end(),
                         [](const ConcurrentTest& a, const ConcurrentTest& b) { return a.overlap_s > b.overlap_s; });
        r.warnings.push_back(std::to_string(r.shared_with.size()) + " other tests overlapped this one on this host; " +
                             "the " + std::to_string(kMaxSharedWith) + " that overlapped longest are named");
        r.shared_with.resize(kMaxSharedWith);
    }
    // The reports name them beside the figures they share (SHARED host); two tests pinned to one CPU are
    // worse (each ran on it at most part of the time): a warning.
    for (auto& w : shared_cpu_warnings(cfg_.half.side.cpus, r.shared_with)) r.warnings.push_back(std::move(w));
}

}  // namespace zc
