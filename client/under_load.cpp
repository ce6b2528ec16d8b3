#include "under_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "cli.hpp"
#include "kind/spec_rules.hpp"
#include "protocol/messages.hpp"
#include "tcp/tcp_params.hpp"
#include "side_by_side.hpp"

namespace zc {

UnderLoadOption parse_under_load(const std::string& text) {
    UnderLoadOption out;
    const auto colon = text.find(':');
    const std::string counts = text.substr(0, colon);
    if (colon != std::string::npos) {
        try {
            out.transport = transport_from_name(text.substr(colon + 1));
        } catch (const std::exception& e) {
            throw std::invalid_argument("--under-load " + text + ": " + e.what());
        }
    }
    size_t at = 0;
    while (at <= counts.size()) {
        const size_t comma = std::min(counts.find(',', at), counts.size());
        const std::string item = counts.substr(at, comma - at);
        size_t used = 0;
        int n = -1;
        try {
            n = std::stoi(item, &used);
        } catch (const std::exception&) {}
        if (item.empty() || used != item.size() || n < 0 || n > kMaxStreams)
            throw std::invalid_argument("--under-load '" + text +
                                        "': give N[:TRANSPORT] or a list 0,1,4[:TRANSPORT], each N 0.." +
                                        std::to_string(kMaxStreams) + " stream connections (0: the test alone)");
        if (std::find(out.counts.begin(), out.counts.end(), n) != out.counts.end())
            throw std::invalid_argument("--under-load '" + text + "' gives " + std::to_string(n) + " twice");
        out.counts.push_back(n);
        at = comma + 1;
    }
    return out;
}

TestSpec load_spec(const TestSpec& test) {
    TestSpec s;
    s.transport = test.load.transport.value_or(test.transport);
    s.test = Workload::stream;
    s.message_size = default_message_size(Workload::stream, s.transport);
    s.duration_s = test.duration_s + 2 * kLoadLeadS;
    s.streams = test.load.streams;
    s.irq_wait_s = test.irq_wait_s;
    s.server_wait_s = test.server_wait_s;
    // The same path as the test's: the devices and interface it was bound to, where the load's transport
    // takes them (a tcp load beside an rr over rdma-send has no RDMA device to choose: its halves keep only
    // the kind parameters their transport takes).
    s.local.kind_params = test.local.kind_params;
    s.remote.kind_params = test.remote.kind_params;
    // --bind-dev binds TCP sockets alone (TCP's side parameters go with every row: tcp/tcp_params.cpp).
    if (!transport_info(s.transport).tcp_sockets) s.local.kind_params.erase(kTcpSideParams.name);
    s.local.cpus = test.load.local_cpus;
    s.remote.cpus = test.load.remote_cpus;
    return s;
}

std::string load_problem(const TestSpec& test) {
    if (test.load.streams == 0) return "";
    if (std::string why = spec_problem(load_spec(test)); !why.empty()) {
        return fmt::format("--under-load {}:{}: its stream test cannot run: {}", test.load.streams,
                           transport_name(load_spec(test).transport), why);
    }
    return "";
}

std::string under_load_support_problem(const Welcome& welcome) {
    if (welcome.has_feature(kFeatureUnderLoad)) return "";
    return "--under-load runs its load as a second test beside the rr, and the server (" + welcome.software +
           ") does not say it runs two tests at once: it predates --under-load, or runs --exclusive. Run the same "
           "zcperf release's zcserver without --exclusive, or run the load yourself (zcperf -t stream -P N) beside "
           "an rr";
}

namespace {

// zcperf-mpi's start gate has its own deadline, well inside this one.
constexpr std::chrono::seconds kLoadReleaseBound{300};

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

LoadBeside load_beside(const TestResult& load, double lead_s, double tail_s) {
    LoadBeside b;
    b.asked = true;
    b.streams = load.streams;
    b.transport = transport_name(load.transport);
    b.message_size = load.message_size;
    b.bytes = load.bytes;
    b.elapsed_s = load.elapsed_s;
    b.throughput_gbps = load.throughput_gbps;
    b.local_cpu_pct = load.local.cpu_util_pct();
    b.remote_cpu_pct = load.remote.cpu_util_pct();
    b.local_cpus = load.local.cpus;
    b.remote_cpus = load.remote.cpus;
    b.lead_s = lead_s;
    b.tail_s = tail_s;
    return b;
}

}  // namespace

TestResult run_under_load(ControlClient& control, ControlClient& load_control, const TestSpec& test,
                          const std::function<void()>& before_start) {
    if (std::string why = under_load_support_problem(control.welcome()); !why.empty()) throw std::runtime_error(why);
    using clock = std::chrono::steady_clock;
    clock::time_point load_start, test_start;
    std::promise<void> released;  // the load is running (or failed to start: then the test fails with it)
    std::future<void> load_released = released.get_future();
    auto release_load = [&] {
        try {
            if (before_start) before_start();
        } catch (...) {
            released.set_exception(std::current_exception());
            throw;
        }
        load_start = clock::now();
        released.set_value();
    };
    auto start_test_after_load = [&] {
        if (load_released.wait_for(kLoadReleaseBound) != std::future_status::ready)
            throw std::runtime_error("--under-load: the load was not released within " +
                                     std::to_string(kLoadReleaseBound.count()) + " s");
        load_released.get();
        std::this_thread::sleep_for(std::chrono::duration<double>(kLoadLeadS));
        test_start = clock::now();
    };
    auto [r, load] = run_side_by_side("--under-load", {control, test, start_test_after_load},
                                      {load_control, load_spec(test), release_load});
    // Each interval by the client's clock from its release: the load's by its receiver's count of it.
    const double lead_s = seconds(test_start - load_start);
    const double test_s = r.messages.elapsed_s > 0 ? r.messages.elapsed_s : r.elapsed_s;
    const double tail_s = load.elapsed_s - lead_s - test_s;
    r.under_load = load_beside(load, lead_s, tail_s);
    if (tail_s < 0) {
        r.warnings.push_back(fmt::format(
            "--under-load: the load stopped {:.3f} s before the test's interval ended (it ran {:.3f} s, started "
            "{:.3f} s ahead): the last transactions ran without it",
            -tail_s, load.elapsed_s, lead_s));
    }
    return r;
}

}  // namespace zc
