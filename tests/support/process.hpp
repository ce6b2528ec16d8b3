#pragma once
// Real processes for end-to-end tests: spawn zcserver / zcperf (optionally inside a network
// namespace), capture their output, wait with a bound, and never leave one behind.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zc::e2e {

struct Outcome {
    int exit_code = -1;  // 128+N when killed by signal N; -1 when it had to be killed at the deadline
    bool timed_out = false;
    double seconds = 0;
    std::string out, err;
};

class Process {
public:
    explicit Process(std::vector<std::string> argv);
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;
    ~Process();  // SIGKILL + reap if still running

    pid_t pid() const { return pid_; }
    void signal(int sig);
    // Waits up to `limit`; kills the process if it is still running then.
    Outcome wait(std::chrono::milliseconds limit);
    std::string stderr_so_far() const;
    std::string stdout_so_far() const;
    // Polls stderr until `text` appears (e.g. zcserver's "listening on"), up to `limit`.
    bool wait_for_stderr(const std::string& text, std::chrono::milliseconds limit) const;

private:
    pid_t pid_ = -1;
    std::string out_path_, err_path_;
    std::chrono::steady_clock::time_point started_;
    bool reaped_ = false;
};

// Runs to completion (bounded).
Outcome run(const std::vector<std::string>& argv, std::chrono::milliseconds limit = std::chrono::seconds(60));
// zcperf ARGS, run to completion (bounded).
Outcome run_zcperf(std::vector<std::string> args, std::chrono::milliseconds limit = std::chrono::seconds(60));

std::string zcperf_bin();  // ZCPERF_BIN in the environment overrides the built one
std::string zcserver_bin();
uint16_t free_port();
// The environment variable `name`, or `fallback` when it is unset or empty.
std::string env_or(const char* name, const std::string& fallback = "");

// A zcserver on 127.0.0.1 and a free port, ready when constructed.
class LocalServer {
public:
    explicit LocalServer(std::vector<std::string> extra = {});
    uint16_t port() const { return port_; }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    Process& process() { return *proc_; }

private:
    uint16_t port_;
    std::unique_ptr<Process> proc_;
};

}  // namespace zc::e2e
