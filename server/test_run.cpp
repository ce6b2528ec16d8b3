#include "test_run.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <random>

#include "run/side_runner.hpp"
#include "transport/tcp_socket.hpp"

namespace zc {

namespace {
constexpr auto kAcceptWindow = std::chrono::seconds(10);
constexpr auto kStartWindow = std::chrono::seconds(30);
constexpr auto kStallTimeout = std::chrono::seconds(10);

// Reads the 8-byte token that opens every data connection, within the deadline.
bool read_token(int fd, uint64_t expected, std::chrono::steady_clock::time_point deadline) {
    uint64_t got = 0;
    size_t have = 0;
    auto* p = reinterpret_cast<char*>(&got);
    while (have < sizeof(got)) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd pfd{fd, POLLIN, 0};
        if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
        ssize_t n = ::recv(fd, p + have, sizeof(got) - have, MSG_DONTWAIT);
        if (n <= 0) return false;
        have += static_cast<size_t>(n);
    }
    return got == expected;
}
}  // namespace

TestRun::TestRun(ServerSpec spec, const std::string& bind_address, std::set<int> exclude_pids, std::string host,
                 Notify notify)
    : spec_(std::move(spec)), exclude_pids_(std::move(exclude_pids)), host_(std::move(host)), notify_(std::move(notify)) {
    auto [fd, port] = listen_tcp(bind_address, 0, spec_.streams, spec_.side.socket_buffer);
    listener_ = std::move(fd);
    port_ = port;
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
        std::vector<UniqueFd> fds;
        auto deadline = std::chrono::steady_clock::now() + kAcceptWindow;
        while (static_cast<int>(fds.size()) < spec_.streams) {
            UniqueFd fd = accept_until(listener_.get(), deadline, &stopped_);
            if (stopped_.load()) throw std::runtime_error("the test was stopped before it started");
            if (!fd) {
                throw std::runtime_error("only " + std::to_string(fds.size()) + " of " + std::to_string(spec_.streams) +
                                         " data connections arrived within 10 s (a firewall between the hosts?)");
            }
            if (!read_token(fd.get(), token_, deadline)) continue;  // a stray connection: not ours
            set_receive_timeout(fd.get(), kStallTimeout);
            fds.push_back(std::move(fd));
        }
        listener_.reset();

        SideConfig cfg;
        cfg.role = server_role(spec_.test);
        cfg.transport = spec_.transport;
        cfg.message_size = spec_.message_size;
        cfg.duration_s = spec_.duration_s;
        cfg.total_bytes = spec_.total_bytes;
        cfg.alignment = spec_.alignment;
        cfg.rx = spec_.rx;
        cfg.uring_fixed = spec_.uring_fixed;
        cfg.cpus = spec_.side.cpus;
        cfg.mem_node = spec_.side.mem_node;
        cfg.irq_cpus = spec_.side.irq_cpus;
        cfg.exclude_pids = exclude_pids_;
        cfg.host = host_;
        SideRunner runner(std::move(cfg), std::move(fds));
        runner.wait_ready();
        {
            std::unique_lock lock(mu_);
            if (!cv_.wait_for(lock, kStartWindow, [&] { return start_requested_ || stopped_.load(); })) {
                throw std::runtime_error("the client did not start the test within 30 s");
            }
            if (stopped_.load()) throw std::runtime_error("the test was stopped before it started");
            runner_ = &runner;
        }
        runner.start();
        notify_(Started{});
        SideResult side;
        try {
            side = runner.finish();
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
