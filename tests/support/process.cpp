#include "process.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace zc::e2e {

namespace {
std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
std::atomic<int> counter{0};  // Processes are started from several threads (the flood test's lanes)
}  // namespace

Process::Process(std::vector<std::string> argv) {
    std::string base = "/tmp/zc-e2e-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    out_path_ = base + ".out";
    err_path_ = base + ".err";
    started_ = std::chrono::steady_clock::now();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        setpgid(0, 0);
        int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int in = open("/dev/null", O_RDONLY);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
}

Process::~Process() {
    if (!reaped_ && pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    unlink(out_path_.c_str());
    unlink(err_path_.c_str());
}

void Process::signal(int sig) {
    if (!reaped_) kill(pid_, sig);
}

Outcome Process::wait(std::chrono::milliseconds limit) {
    Outcome o;
    auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (!reaped_) {
        pid_t r = waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            reaped_ = true;
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            o.timed_out = true;
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            reaped_ = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (o.timed_out) {
        o.exit_code = -1;
    } else if (WIFEXITED(status)) {
        o.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        o.exit_code = 128 + WTERMSIG(status);
    }
    o.out = slurp(out_path_);
    o.err = slurp(err_path_);
    return o;
}

std::string Process::stderr_so_far() const { return slurp(err_path_); }
std::string Process::stdout_so_far() const { return slurp(out_path_); }

bool Process::wait_for_stderr(const std::string& text, std::chrono::milliseconds limit) const {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (stderr_so_far().find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

Outcome run(const std::vector<std::string>& argv, std::chrono::milliseconds limit) {
    Process p(argv);
    return p.wait(limit);
}

Outcome run_zcperf(std::vector<std::string> args, std::chrono::milliseconds limit) {
    args.insert(args.begin(), zcperf_bin());
    return run(args, limit);
}

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

std::string zcperf_bin() { return env_or("ZCPERF_BIN", ZCPERF_BIN); }  // another build's (the GPU tests)
std::string zcserver_bin() { return ZCSERVER_BIN; }

uint16_t free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t l = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &l);
    close(fd);
    return ntohs(a.sin_port);
}

LocalServer::LocalServer(std::vector<std::string> extra) : port_(free_port()) {
    std::vector<std::string> argv = {zcserver_bin(), "--bind", "127.0.0.1", "--port", std::to_string(port_)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<Process>(argv);
    // A bound for a loaded host, not a speed test: a zcserver start probes the host (RDMA devices, topology),
    // which took 6 s once in a loaded Soft-RoCE guest; a healthy start ends the wait at once.
    if (!proc_->wait_for_stderr("listening on", std::chrono::seconds(60))) {
        throw std::runtime_error("zcserver did not start: " + proc_->stderr_so_far());
    }
}

}  // namespace zc::e2e
