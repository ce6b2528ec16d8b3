#include "test_run.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <random>

#include "protocol/messages.hpp"
#include "run/side_runner.hpp"
#include "transport/tcp_socket.hpp"

namespace zc {

namespace {
constexpr auto kAcceptWindow = std::chrono::seconds(10);
constexpr auto kStartWindow = std::chrono::seconds(30);
constexpr auto kStallTimeout = std::chrono::seconds(10);

// Accepts data connections until `wanted` have presented the token, before the deadline. Pending
// connections are read side by side, so a stray one that stays silent delays nobody.
std::vector<UniqueFd> accept_streams(int listener, int wanted, uint64_t token, std::chrono::steady_clock::time_point deadline,
                                     const std::atomic<bool>& stopped) {
    struct Pending {
        UniqueFd fd;
        uint64_t got = 0;
        size_t have = 0;
    };
    std::vector<UniqueFd> ready;
    std::vector<Pending> pending;
    while (static_cast<int>(ready.size()) < wanted && !stopped.load()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        std::vector<pollfd> fds{{listener, POLLIN, 0}};
        for (const auto& p : pending) fds.push_back({p.fd.get(), POLLIN, 0});
        if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left.count(), 100))) <= 0) continue;
        for (size_t i = fds.size() - 1; i >= 1; --i) {
            if (!fds[i].revents) continue;
            Pending& p = pending[i - 1];
            ssize_t n = ::recv(p.fd.get(), reinterpret_cast<char*>(&p.got) + p.have, sizeof(p.got) - p.have, MSG_DONTWAIT);
            bool drop = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
            if (n > 0) p.have += static_cast<size_t>(n);
            if (p.have == sizeof(p.got)) {
                if (p.got == token) ready.push_back(std::move(p.fd));
                drop = true;  // ours and taken, or a stray with the wrong token
            }
            if (drop) pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i - 1));
        }
        if (fds[0].revents & POLLIN) {
            int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0 && pending.size() < 1024) pending.push_back({UniqueFd(fd), 0, 0});
            else if (fd >= 0) ::close(fd);
        }
    }
    return ready;
}

}  // namespace

TestRun::TestRun(ServerSpec spec, const std::string& bind_address, std::set<int> exclude_pids, std::string host,
                 Notify notify)
    : spec_(std::move(spec)), exclude_pids_(std::move(exclude_pids)), host_(std::move(host)), notify_(std::move(notify)) {
    if (is_rdma(spec_.transport)) {
        rdma_listener_ = std::make_unique<RdmaDataListener>(spec_, server_role(spec_.test), bind_address);
        port_ = rdma_listener_->port();
    } else {
        auto [fd, port] = listen_tcp(bind_address, 0, spec_.streams, spec_.side.socket_buffer);
        listener_ = std::move(fd);
        port_ = port;
    }
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
        std::vector<DataConnection> fds;
        if (rdma_listener_) {
            fds = rdma_listener_->accept(token_, std::chrono::steady_clock::now() + kAcceptWindow, stopped_);
            rdma_listener_.reset();
        } else {
            std::vector<UniqueFd> tcp = accept_streams(listener_.get(), spec_.streams, token_,
                                                       std::chrono::steady_clock::now() + kAcceptWindow, stopped_);
            if (stopped_.load()) throw std::runtime_error(kStoppedBeforeStart);
            if (static_cast<int>(tcp.size()) < spec_.streams) {
                throw std::runtime_error("only " + std::to_string(tcp.size()) + " of " + std::to_string(spec_.streams) +
                                         " data connections arrived within 10 s (a firewall between the hosts?)");
            }
            for (auto& fd : tcp) {
                set_receive_timeout(fd.get(), kStallTimeout);
                fds.emplace_back(std::move(fd));
            }
            listener_.reset();
        }

        SideConfig cfg{spec_, server_role(spec_.test), exclude_pids_, host_};
        SideRunner runner(std::move(cfg), std::move(fds));
        runner.wait_ready();
        {
            std::unique_lock lock(mu_);
            if (!cv_.wait_for(lock, kStartWindow, [&] { return start_requested_ || stopped_.load(); })) {
                throw std::runtime_error("the client did not start the test within 30 s");
            }
            if (stopped_.load()) throw std::runtime_error(kStoppedBeforeStart);
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
