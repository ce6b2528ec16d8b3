#pragma once
// With no -H, zcperf tests against its own server on loopback: a child process running the same
// server code as zcserver (its own process, so each side's CPU and rusage stay its own).
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace zc {

class EmbeddedServer {
public:
    // Forks the server, listening on `bind` ("::1" for -6); call before any thread exists. Throws
    // std::runtime_error. offer_gpus = false: it offers host memory only and never starts the GPU driver.
    explicit EmbeddedServer(const std::string& bind = "127.0.0.1", bool offer_gpus = true);
    EmbeddedServer(const EmbeddedServer&) = delete;
    EmbeddedServer& operator=(const EmbeddedServer&) = delete;
    ~EmbeddedServer();  // stops the child and reaps it
    uint16_t port() const { return port_; }
    // How the child ended, waiting up to `wait_ms` for it ("exited with status 1", "killed by signal 9
    // (SIGKILL)"); "" while it runs. For the run's error when the control connection closed under it.
    std::string ended_how(int wait_ms);

private:
    pid_t pid_ = -1;
    uint16_t port_ = 0;
    std::optional<uint64_t> oom_kills_at_start_;  // the host's OOM kills so far, when the child started
};

// Who sent a SIGKILL, from the OOM kill counts before and after: the OOM killer when the count rose, another
// process when it did not, either when a count is unknown.
std::string sigkill_cause(std::optional<uint64_t> before, std::optional<uint64_t> after);

}  // namespace zc
