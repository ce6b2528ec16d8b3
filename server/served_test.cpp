#include "served_test.hpp"

#include <cerrno>
#include <chrono>
#include <random>

#include "protocol/messages.hpp"
#include "run/side_runner.hpp"
#include "system/fd_limit.hpp"
#include "tcp/tcp_params.hpp"

namespace zc {

namespace {
constexpr auto kAcceptWindow = std::chrono::seconds(10);
constexpr auto kStartWindow = std::chrono::seconds(30);

}  // namespace

TestRun::TestRun(HalfSpec spec, const std::string& bind_address, std::set<int> exclude_pids, std::string host,
                 std::string peer, Notify notify)
    : spec_(std::move(spec)),
      exclude_pids_(std::move(exclude_pids)),
      host_(std::move(host)),
      peer_(std::move(peer)),
      notify_(std::move(notify)) {
    // Every flow is a descriptor (--flows): room for them, said in the side's report, before listening.
    if (tcp_params(spec_).flows > 1) fd_note_ = ensure_fd_limit(data_connections(spec_), flows_need(spec_));
    listener_ = std::make_unique<DataListener>(spec_, server_role(spec_.test), bind_address);
    port_ = listener_->port();
    token_ = std::random_device{}() | (static_cast<uint64_t>(std::random_device{}()) << 32);
    coordinator_ = std::thread([this] { coordinate(); });
}

TestRun::~TestRun() {
    silent_.store(true);
    stop();
    if (coordinator_.joinable()) coordinator_.join();
}

void TestRun::start() {
    std::lock_guard lock(mu_);
    start_requested_ = true;
    cv_.notify_all();
}

void TestRun::stop() {
    std::lock_guard lock(mu_);
    stopped_.store(true);
    if (runner_) runner_->abort();
    cv_.notify_all();
}

void TestRun::coordinate() {
    try {
        std::vector<DataConnection> fds =
            listener_->accept(token_, std::chrono::steady_clock::now() + kAcceptWindow, stopped_);
        // Open until this run ends where later subflows join it (KindListener::keeps_listening), else closed now.
        std::unique_ptr<DataListener> open_for_joins;
        if (listener_->keeps_listening()) open_for_joins = std::move(listener_);
        listener_.reset();

        // zcserver, or the server inside zcperf (the embedded one) or zcperf-mpi.
        std::string me = program_invocation_short_name;
        SideConfig cfg{spec_,
                       server_role(spec_.test),
                       exclude_pids_,
                       host_,
                       {},
                       me == "zcserver" ? me : me + " (embedded server)",
                       peer_,
                       token_,
                       {}};
        if (!fd_note_.empty()) cfg.notes.push_back(fd_note_);
        if (spec_.interval_s > 0) {  // each interval goes to the client as it ends (the session sends in order)
            cfg.on_interval = [this](const SideInterval& s) {
                if (!silent_.load()) notify_(IntervalMsg{s});
            };
        }
        SideRunner runner(std::move(cfg), std::move(fds));
        runner.wait_ready();
        {
            std::unique_lock lock(mu_);
            // The client's side may have waited for IRQs another test of its host held (--irq-wait).
            auto window = kStartWindow + std::chrono::milliseconds(static_cast<int64_t>(spec_.irq_wait_s * 1000));
            if (!cv_.wait_for(lock, window, [&] { return start_requested_ || stopped_.load(); })) {
                throw std::runtime_error(
                    "the client did not start the test within " +
                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(window).count()) + " s");
            }
            if (stopped_.load()) throw std::runtime_error(kStoppedBeforeStart);
            runner_ = &runner;
        }
        SideResult side;
        try {
            runner.move_irqs();  // the client's side holds its host's by now (see move_irqs)
            runner.start([this] { notify_(Started{}); });
            side = runner.finish();
            ended_connections_ = runner.release_connections();
        } catch (...) {
            std::lock_guard lock(mu_);
            runner_ = nullptr;
            throw;
        }
        {
            std::lock_guard lock(mu_);
            runner_ = nullptr;
        }
        notify_(ResultMsg{std::move(side)});
    } catch (const std::exception& e) {
        if (!silent_.load()) notify_(ErrorMsg{std::string("server: ") + e.what()});
    }
}

}  // namespace zc
