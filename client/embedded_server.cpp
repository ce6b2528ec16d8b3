#include "embedded_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "server.hpp"
#include "core/unique_fd.hpp"
#include "measure/proc_stat.hpp"

namespace zc {

namespace {
// The child probes the host before it listens (CPUs, NUMA, RDMA devices, and GPUs when a test wants them: a
// GPU driver's first call takes seconds on some hosts, over 5 s once on the lent H200 machine); 20 s then
// says something is wrong.
constexpr int kStartWindowMs = 20000;

// Reaps the child if it exits within `ms` (its wait status into `status`, when given).
bool reaped_within(pid_t pid, int ms, int* status = nullptr) {
    for (int i = 0; i < ms / 10; ++i) {
        if (waitpid(pid, status, WNOHANG) == pid) return true;
        usleep(10000);
    }
    return false;
}

// Kills the child and reaps it, waiting at most 2 s: a child stuck in the kernel (a driver call) cannot
// die until that call returns, and zcperf must not hang on it. Not reaped then, it is its parent's zombie
// until zcperf exits.
void kill_and_reap(pid_t pid) {
    kill(pid, SIGKILL);
    reaped_within(pid, 2000);
}
}  // namespace

EmbeddedServer::EmbeddedServer(const std::string& bind, bool offer_gpus) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    UniqueFd rd(p[0]), wr(p[1]);
    pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive the client
        if (getppid() != parent) _exit(0);
        rd.reset();
        int code = 0;
        try {
            ServerOptions opt;
            opt.bind = bind;
            opt.port = 0;
            opt.verbose = false;
            opt.max_sessions = 4;
            opt.allow_irq_affinity = true;  // the user running zcperf is this server's operator
            opt.probe_gpus = offer_gpus;
            Server server(opt);
            uint16_t port = server.port();
            if (::write(wr.get(), &port, sizeof(port)) != sizeof(port)) _exit(1);
            wr.reset();
            server.run();
        } catch (const std::exception& e) {
            std::string msg = std::string("embedded server: ") + e.what();
            if (wr) (void)!::write(wr.get(), msg.data(), msg.size());
            code = 1;
        }
        _exit(code);
    }
    wr.reset();
    pollfd pf{rd.get(), POLLIN, 0};
    char buf[512] = {};
    ssize_t n = ::poll(&pf, 1, kStartWindowMs) > 0 ? ::read(rd.get(), buf, sizeof(buf)) : -1;
    if (n != sizeof(port_)) {
        kill_and_reap(pid_);
        throw std::runtime_error(
            n > 0 ? std::string(buf, static_cast<size_t>(n))
                  : "the embedded server did not start within " + std::to_string(kStartWindowMs / 1000) +
                        " s (it probes the host's CPUs, RDMA devices and, for --buffer's GPU memory, GPUs first: is "
                        "a driver hanging? `nvidia-smi` answers that for GPUs); run zcserver on this host and give "
                        "zcperf -H 127.0.0.1");
    }
    std::memcpy(&port_, buf, sizeof(port_));
    oom_kills_at_start_ = read_oom_kills();
}

std::string EmbeddedServer::ended_how(int wait_ms) {
    if (pid_ <= 0) return "";
    int status = 0;
    if (!reaped_within(pid_, wait_ms, &status)) return "";
    pid_ = -1;  // reaped: the destructor has nothing left to stop
    if (WIFSIGNALED(status)) {
        const char* name = sigabbrev_np(WTERMSIG(status));
        return "killed by signal " + std::to_string(WTERMSIG(status)) +
               (name ? " (SIG" + std::string(name) + ")" : "") +
               (WTERMSIG(status) == SIGKILL ? ": " + sigkill_cause(oom_kills_at_start_, read_oom_kills()) : "");
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

std::string sigkill_cause(std::optional<uint64_t> before, std::optional<uint64_t> after) {
    if (!before || !after) return "the kernel's OOM killer (see dmesg) or another process";
    if (*after > *before)
        return "the kernel's OOM killer (/proc/vmstat's oom_kill rose by " + std::to_string(*after - *before) +
               " during the run: see dmesg, and the memory limit of the cgroup it runs in)";
    return "not the OOM killer (/proc/vmstat's oom_kill did not move during the run): another process sent it";
}

EmbeddedServer::~EmbeddedServer() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    if (!reaped_within(pid_, 1000)) kill_and_reap(pid_);  // 1 s to stop, then forced
}

}  // namespace zc
