#include "run_driver.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <mutex>
#include <fmt/format.h>

#include "run/side_runner.hpp"
#include "system/fd_limit.hpp"
#include "tcp/tcp_params.hpp"
#include "tcp/tcp_report.hpp"
#include "paths/data_setup.hpp"
#include "kind/transport_ops.hpp"
#include "socket/endpoint.hpp"

namespace zc {

std::atomic<bool> g_interrupted{false};

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kReplyTimeout = std::chrono::seconds(10);
constexpr auto kResultGrace = std::chrono::seconds(30);
constexpr double kOtherLoadWarnPct = 5.0;  // of one CPU
constexpr double kOverrunWarnRatio = 1.2;  // measured interval / the asked -l

// A timed test that outlasts its -l by more than 20 % averages something the user did not ask for (a
// stalled link, a descheduled peer): say so, and name the one data call that explains it, if one does.
void note_overrun(const TestSpec& spec, const SideResult& local, const SideResult& remote,
                  std::vector<std::string>& warnings) {
    if (spec.total_bytes > 0 || spec.duration_s <= 0) return;
    const SideResult& longest = local.elapsed_s >= remote.elapsed_s ? local : remote;
    if (longest.elapsed_s <= spec.duration_s * kOverrunWarnRatio) return;
    const SideResult& caller = local.longest_call_s >= remote.longest_call_s ? local : remote;
    std::string why;
    if (caller.longest_call_s >= 0.1 * longest.elapsed_s) {
        why = fmt::format(
            "{} ({}) waited {:.2f} s in one data call, until {:.2f} s into its interval: the peer or "
            "the link stalled",
            &caller == &local ? "local" : "remote", caller.path, caller.longest_call_s, caller.longest_call_end_s);
    } else {
        why = is_message_test(spec.test)
                  ? "see the maximum round trip and the per-CPU and other-process figures for where the time went"
                  : "no single data call explains it (a slow start or teardown, or a descheduled data thread: see "
                    "the per-CPU and other-process figures)";
    }
    warnings.push_back(
        fmt::format("the measured interval lasted {:.2f} s ({}), {:.1f}x the {:g} s asked (-l): {}; "
                    "every figure averages over all of it",
                    longest.elapsed_s, &longest == &local ? "local" : "remote", longest.elapsed_s / spec.duration_s,
                    spec.duration_s, why));
}

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Our set-up failed: the server stops waiting (it keeps serving) and answers with its final event.
// That answer is read here, so the next test on this connection does not get it instead, and when
// the server failed first its reason leads: a refused connection ("rejected") is only the symptom
// of, say, its --rdma-dev check.
[[noreturn]] void stop_and_explain(ControlClient& control, const std::exception& ours) {
    control.send(Stop{});
    std::string theirs;
    try {
        control.receive(std::chrono::seconds(3));
    } catch (const ServerError& e) {
        theirs = e.what();
    } catch (const std::exception&) {}
    if (theirs.empty() || theirs.find(kStoppedBeforeStart) != std::string::npos) throw;
    throw ServerError(theirs + " (here: " + ours.what() + ")");
}

// Our side failed during the test (a call the kernel refused, the peer gone). The server's side would only
// wait out the test for data that no longer comes (a UDP receiver then blames the network): it is stopped
// and its last word read (bounded, so the connection is left clean). Ours leads when the server only
// reports the stop; a server that failed on its own (its reason may be why ours failed) or a control
// connection that is gone lead as they do when seen first, with ours beside them.
[[noreturn]] void stop_after_local_failure(ControlClient& control, const std::string& ours) {
    std::string theirs;
    try {
        control.send(Stop{});
        auto until = Clock::now() + std::chrono::seconds(3);
        while (Clock::now() < until)
            if (std::holds_alternative<ResultMsg>(control.receive(std::chrono::seconds(3)))) break;  // or an interval
    } catch (const ConnectionError& e) {
        throw ConnectionError(std::string(e.what()) +
                              " during the test: did zcserver die or get killed? (here: " + ours + ")");
    } catch (const ServerError& e) {
        theirs = e.what();
    } catch (const std::exception&) {}
    if (theirs.empty() || theirs.find(kStoppedMidTest) != std::string::npos) throw std::runtime_error(ours);
    throw ServerError(theirs + " (here: " + ours + ")");
}

// --interval: both sides' intervals as they come, paired, handed to the sink as rows and kept for the result.
struct IntervalFeed {
    IntervalPairer pairer;
    const IntervalSink& sink;
    std::mutex mu;
    std::vector<SideInterval> local;  // from our sampler thread, until the control thread takes them
    std::vector<IntervalRow> rows;

    void add_local(const SideInterval& s) {
        std::lock_guard lock(mu);
        local.push_back(s);
    }
    void pass_on(bool all = false) {
        {
            std::lock_guard lock(mu);
            for (const auto& s : local) pairer.add_local(s);
            local.clear();
        }
        for (auto& row : pairer.take(all)) {
            if (sink) sink(row);
            rows.push_back(std::move(row));
        }
    }
};

// Waits for the server's result while our own side runs; watches Ctrl-C and a vanished server, and
// passes the intervals on as they come.
SideResult await_remote(ControlClient& control, SideRunner& runner, const TestSpec& spec, IntervalFeed& feed) {
    auto deadline =
        spec.total_bytes
            ? Clock::time_point::max()
            : Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(spec.duration_s * 1000)) + kResultGrace;
    bool local_done = false;
    // With intervals, look at both sides' several times an interval, so each line comes out in time.
    int poll_ms = spec.interval_s > 0 ? std::clamp(static_cast<int>(spec.interval_s * 250), 5, 200) : 200;
    while (true) {
        feed.pass_on();
        if (g_interrupted.load()) {
            try {
                control.send(Stop{});
            } catch (...) {}
            runner.abort();
            throw InterruptedError();
        }
        if (!local_done && runner.done()) {
            local_done = true;
            if (std::string ours = runner.failure(); !ours.empty()) stop_after_local_failure(control, ours);
            deadline = std::min(deadline, Clock::now() + kResultGrace);
        }
        if (Clock::now() > deadline) {
            runner.abort();
            throw ConnectionError("the server sent no result within " + std::to_string(kResultGrace.count()) +
                                  " s of the test's end (is it overloaded or gone?)");
        }
        pollfd p{control.fd(), POLLIN, 0};
        int rc = ::poll(&p, 1, poll_ms);
        if (rc <= 0) continue;
        try {
            Message m = control.receive(kReplyTimeout);
            if (auto* r = std::get_if<ResultMsg>(&m)) return std::move(r->side);
            if (auto* i = std::get_if<IntervalMsg>(&m); i && spec.interval_s > 0) {
                feed.pairer.add_remote(i->sample);
                continue;
            }
            throw ProtocolError(std::string("the server sent an unexpected ") + message_name(m) + " during the test");
        } catch (const ConnectionError& e) {
            runner.abort();
            throw ConnectionError(std::string(e.what()) + " during the test: did zcserver die or get killed?");
        } catch (...) {
            runner.abort();
            throw;
        }
    }
}

// The two sides' counts must agree before any figure is reported; throws what does not.
void check_counts(const TestSpec& spec, const SideResult& tx, const SideResult& rx) {
    // A kind that may lose data (UDP's datagrams) checks that the two sides' counts add up instead.
    if (std::optional<std::string> lossy = kind_block_count_problem(tx, rx)) {
        if (!lossy->empty())
            throw std::runtime_error(std::string(transport_name(spec.transport)) + " count mismatch: " + *lossy +
                                     ". No figures are reported for this test.");
    } else if (std::string why = flow_count_problem(tx, rx); !why.empty()) {  // --flows: the tcp block's counts
        throw std::runtime_error(why + ". No figures are reported for this test.");
    } else if (tx.bytes != rx.bytes || (!ran_flows(tx) && !is_connection_test(spec.test) &&
                                        tx.stream_bytes != rx.stream_bytes)) {  // crr, cc: one listener
        throw std::runtime_error(
            fmt::format("byte count mismatch: the sender sent {} bytes but the receiver counted {}; a peer ended the "
                        "stream early or the data connection lost data. No figures are reported for this test.",
                        tx.bytes, rx.bytes));
    }
}

// Each side's own warnings, and the load other processes put on its host.
void note_sides(const SideResult& local, const SideResult& remote, std::vector<std::string>& warnings) {
    for (const auto* side : {&local, &remote}) {
        const char* name = side == &local ? "local" : "remote";
        for (const auto& w : side->warnings) warnings.push_back(std::string(name) + ": " + w);
        double pct = side->others_cpu_pct_of_one_cpu();
        if (pct > kOtherLoadWarnPct) {
            std::string who;
            for (const auto& t : side->cpu.others.top)
                who += fmt::format("{}{}[{}] {:.2f} s", who.empty() ? "" : ", ", t.comm, t.pid, t.cpu_s);
            warnings.push_back(
                fmt::format("{}: other processes used at least {:.1f}% of a CPU during the test ({}); the whole-host "
                            "CPU figures and "
                            "service demand include that load",
                            name, pct, who));
        }
    }
}

// A -b sender's pace (any kind: the sides' pacing sections).
void note_pacing(const TestSpec& spec, const SideResult& tx, const SideResult& rx, std::vector<std::string>& warnings) {
    PacingReport paced = tx.pacing;
    if (!paced.asked()) return;
    // A timed paced sender sends what is due before the end of -l: its rate is its bytes over -l (its
    // measured interval also holds the end marker's exchange); with -n, over its interval. Per stream.
    // rdma-read's paced loop is the reader's: its side carries the pacing, the sender's the bytes.
    double span = spec.total_bytes == 0 ? spec.duration_s : tx.elapsed_s;
    int streams = std::max(1, static_cast<int>(tx.stream_bytes.size()));
    double rate = span > 0 ? static_cast<double>(tx.bytes) * 8 / span / streams : 0;
    if (paced.counts.method == PacingMethod::none) paced.counts = rx.pacing.counts;
    warnings.push_back(pacing_note(paced, rate, streams));
}

// How much of a zero-copy send the kernel copied anyway, and why it may have.
void note_tx_zerocopy(const SideResult& tx, bool same_host, std::vector<std::string>& warnings) {
    if (tx.zerocopy.sent_bytes == 0) return;
    double pct = 100.0 * static_cast<double>(tx.zerocopy.copied_bytes) / static_cast<double>(tx.zerocopy.sent_bytes);
    std::string note =
        fmt::format("{}: the kernel reports it copied {:.1f}% of the {} zero-copy bytes anyway ({} completions{})",
                    tx.path, pct, tx.zerocopy.sent_bytes, tx.zerocopy.completions,
                    tx.zerocopy.enobufs ? fmt::format(", {} ENOBUFS waits", tx.zerocopy.enobufs) : "");
    if (pct > 99.9) {
        note += same_host ? "; on loopback and veth it always copies (the receiver must not see pages the sender "
                            "may still change), so this measures the zero-copy machinery's overhead, not its gain"
                          : "; the device cannot send from user pages (no scatter-gather or checksum offload?)";
    }
    warnings.push_back(note);
}

// How much of a zero-copy receive was mapped, and why pages may not have been.
void note_rx_zerocopy(const SideResult& rx, bool same_host, std::vector<std::string>& warnings) {
    if (rx.zerocopy.rx_mapped_bytes + rx.zerocopy.rx_copied_bytes == 0) return;
    double pct = 100.0 * static_cast<double>(rx.zerocopy.rx_mapped_bytes) /
                 static_cast<double>(rx.zerocopy.rx_mapped_bytes + rx.zerocopy.rx_copied_bytes);
    std::string note = fmt::format("rx-zerocopy: {:.1f}% of the bytes were mapped, {:.1f}% copied", pct, 100 - pct);
    if (pct < 50) {
        // Between hosts the sender does not matter: the receiving NIC's buffers decide (0 % in the lab's virtio-net).
        // The senders that hand the kernel their own pages to a receiver that maps them (the rows' data).
        const std::string senders = transport_names_where([](const TransportInfo& t) {
            return t.send_buffer == SendBuffer::zc_ring && rx_mode_row(t, RxMode::zerocopy);
        });
        note += same_host ? "; pages map only when whole pages arrive from a sender that did not copy them "
                            "(on loopback: " +
                                senders + ", and an MSS that is a multiple of the page size)"
                          : "; pages map only when the receiving driver puts each segment's payload in whole pages "
                            "at page offset 0 (header split, and an MSS that is a multiple of the page size); "
                            "drivers without header split, virtio-net among them, put it right after the headers, "
                            "so the kernel copies it";
    }
    warnings.push_back(note);
}

}  // namespace

TestResult merge_sides(const TestSpec& spec, SideResult local, SideResult remote, bool same_host) {
    TestResult r;
    r.transport = spec.transport;
    r.rx = spec.rx;
    r.test = spec.test;
    r.message_size = spec.message_size;
    r.streams = spec.streams;
    const SideResult& rx = local.role == Role::recv ? local : remote;
    const SideResult& tx = local.role == Role::recv ? remote : local;
    check_counts(spec, tx, rx);
    r.bytes = rx.bytes;
    r.elapsed_s = rx.elapsed_s;
    r.throughput_gbps = r.elapsed_s > 0 ? static_cast<double>(r.bytes) * 8 / r.elapsed_s / 1e9 : 0;
    note_sides(local, remote, r.warnings);
    note_overrun(spec, local, remote, r.warnings);
    for (auto& n : kind_block_notes(tx.kinds, rx.kinds)) r.warnings.push_back(std::move(n));  // each kind's checks
    note_pacing(spec, tx, rx, r.warnings);
    note_tx_zerocopy(tx, same_host, r.warnings);
    note_rx_zerocopy(rx, same_host, r.warnings);
    if (same_host) {
        r.warnings.push_back(
            "client and server share one host: local and remote whole-host CPU figures both count the whole machine "
            "(both sides' work); the process figures are each side's own");
    }
    if (is_message_test(spec.test)) {
        // Messages per call: per send call for TCP and UDP (--batch), the kind's own where it posts (verbs).
        auto per_call = transport_ops(spec.transport).messages_per_call;
        uint32_t batch = per_call ? per_call(spec) : spec.batch;
        r.messages = message_result(spec.test, spec.transport, batch, local, remote, r.elapsed_s, spec.percentiles);
        r.warnings.insert(r.warnings.end(), r.messages.notes.begin(), r.messages.notes.end());
    }
    r.local = std::move(local);
    r.remote = std::move(remote);
    return r;
}

std::string interval_support_problem(const TestParams& params, const Welcome& welcome) {
    if (params.interval_s <= 0 || welcome.has_feature(kFeatureIntervals)) return "";
    return "the server (" + welcome.software +
           ") sends no interval samples: it predates --interval, so each interval shows this side's figures "
           "only; run the same zcperf release on both hosts for both sides";
}

std::string flows_support_problem(const TestParams& params, const Welcome& welcome) {
    if (tcp_params(params).flows <= 1 || welcome.has_feature(kFeatureFlows)) return "";
    return "the server (" + welcome.software +
           ") predates --flows: it would wait for one connection per stream; run the same zcperf release on both "
           "hosts, or use -P N";
}

TestResult run_test(ControlClient& control, const TestSpec& spec, const RunHooks& hooks) {
    auto t0 = Clock::now();
    if (std::string why = flows_support_problem(spec, control.welcome()); !why.empty()) throw std::runtime_error(why);
    // Every flow is a descriptor: room for them before the server is asked to listen for them.
    std::string fd_note = tcp_params(spec).flows > 1 ? ensure_fd_limit(data_connections(spec), flows_need(spec)) : "";
    control.send(Setup{server_half(spec)});
    // An --exclusive server answers once the test it runs has ended (within --server-wait).
    Ready ready = control.expect<Ready>(kReplyTimeout +
                                        std::chrono::milliseconds(static_cast<int64_t>(spec.server_wait_s * 1000)));

    std::set<int> exclude{getpid()};
    if (control.same_host()) exclude.insert(control.welcome().host.pid);
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    std::vector<std::string> notes;
    if (!fd_note.empty()) notes.push_back(fd_note);
    if (ready.waited_s > 0)
        notes.push_back(
            fmt::format("the server runs one test at a time (--exclusive): this one waited {:.1f} s "
                        "for another client's test to end (--server-wait)",
                        ready.waited_s));
    SideConfig cfg{side_half(spec, spec.local),
                   client_role(spec.test),
                   exclude,
                   name,
                   {},
                   "",
                   control.server().host + ":" + std::to_string(control.server().port),
                   ready.token,
                   std::move(notes)};
    // A client told to wait (--irq-wait) says why it sits still; the server's side is waited for silently
    // (its wait ends in the client's own bound, kReplyTimeout plus --irq-wait, and in the report's note).
    cfg.on_irq_wait = [](const std::string& why) { std::cerr << "zcperf: " << why << "\n"; };
    // The rows carry the counting side's figures: the receiver's, or rr's client (it times the transactions).
    bool local_counts = is_transaction_test(spec.test) || cfg.role == Role::recv;
    std::string no_remote_intervals = interval_support_problem(spec, control.welcome());
    IntervalFeed feed{
        IntervalPairer(spec.test, local_counts, no_remote_intervals.empty(), spec.interval_s, hooks.iteration),
        hooks.on_interval,
        {},
        {},
        {}};
    if (spec.interval_s > 0) cfg.on_interval = [&feed](const SideInterval& s) { feed.add_local(s); };

    SideResult local, remote;
    double setup_ms = 0, teardown_ms = 0;
    {
        std::vector<DataConnection> conns;
        try {
            conns = connect_data_streams(cfg.half, cfg.role, control.server().host, peer_address(control.fd()),
                                         ready.data_port, ready.token);
        } catch (const std::exception& e) {
            stop_and_explain(control, e);
        }
        SideRunner runner(std::move(cfg), std::move(conns));
        try {
            runner.wait_ready();
            runner.move_irqs();  // before the server's side takes its host's (see move_irqs)
            if (hooks.before_start) hooks.before_start();
        } catch (const std::exception& e) {
            stop_and_explain(control, e);
        }
        control.send(Start{});
        // The server's side may wait for IRQs another test of its host holds (--irq-wait).
        control.expect<Started>(kReplyTimeout +
                                std::chrono::milliseconds(static_cast<int64_t>(spec.irq_wait_s * 1000)));
        runner.start();
        setup_ms = ms_since(t0);
        remote = await_remote(control, runner, spec, feed);
        local = runner.finish();
        feed.pass_on(true);  // the server's last interval came before its result; ours with finish()
        t0 = Clock::now();
    }  // data connections closed here
    teardown_ms = ms_since(t0);
    TestResult r = merge_sides(spec, std::move(local), std::move(remote), control.same_host());
    r.setup_ms = setup_ms + teardown_ms;
    r.interval_s = spec.interval_s;
    r.intervals = std::move(feed.rows);
    if (!no_remote_intervals.empty()) r.warnings.push_back(no_remote_intervals);
    if (spec.explain_hz > 0 && !control.welcome().has_feature(kFeatureExplain) && !r.remote.explain.ran)
        r.remote.explain.problem = "the server (" + control.welcome().software +
                                   ") predates --explain: it sampled nothing; run the same zcperf release on both "
                                   "hosts to explain its side";
    return r;
}

}  // namespace zc
