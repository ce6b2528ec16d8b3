#pragma once
// Open-file limit (RLIMIT_NOFILE) for tests with many connections (--flows): the soft limit is raised
// toward the hard limit when a test needs more descriptors than it allows (an unprivileged process may
// do that; systemd's default soft limit is 1024, its hard limit 524288), and the raise is said in the
// report. Beyond the hard limit is an error that names the limit and how to raise it.
#include <cstdint>
#include <string>

namespace zc {

// Descriptors a process keeps besides its test's connections (stdio, control connection, epolls,
// /proc readers, io_uring, listeners): the margin every need below adds.
inline constexpr uint64_t kFdMargin = 64;

struct FdLimitPlan {
    uint64_t raise_to = 0;  // > 0: set the soft limit to this
    std::string error;      // non-empty: even the hard limit is too low (what to do)
};

// What to do for `needed` descriptors under the limits (soft, hard) (RLIM_INFINITY as it is).
FdLimitPlan plan_fd_limit(uint64_t needed, uint64_t soft, uint64_t hard);

// Makes room in this process for `more` descriptors besides those open now (/proc/self/fd) and
// kFdMargin: "" when the soft limit sufficed, else the sentence for the report ("raised the open-file
// limit ... from 1024 to 2112 for --flows 1000 x -P 2"). Throws std::runtime_error with the plan's
// error. `what` names the need in the sentences. The raise stays for the process (a daemon's next
// test needs it again; it is the process's own limit, not the system's).
std::string ensure_fd_limit(uint64_t more, const std::string& what);
uint64_t open_descriptors();  // this process's, now

}  // namespace zc
