#include "system/fd_limit.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace zc {

FdLimitPlan plan_fd_limit(uint64_t needed, uint64_t soft, uint64_t hard) {
    FdLimitPlan p;
    if (needed <= soft) return p;
    if (needed > hard) {
        p.error = "needs about " + std::to_string(needed) + " open files, more than this process's hard limit (" +
                  std::to_string(hard) +
                  ", RLIMIT_NOFILE): use fewer flows or streams, or raise the hard limit (ulimit -Hn as root, "
                  "LimitNOFILE= in a systemd unit, nofile in /etc/security/limits.conf)";
        return p;
    }
    p.raise_to = needed;
    return p;
}

uint64_t open_descriptors() {
    std::error_code ec;
    uint64_t n = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::end(it);
         it.increment(ec))
        ++n;
    return n;
}

std::string ensure_fd_limit(uint64_t more, const std::string& what) {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) != 0) return "";
    const uint64_t needed = open_descriptors() + more + kFdMargin;
    FdLimitPlan p = plan_fd_limit(needed, r.rlim_cur, r.rlim_max);
    if (!p.error.empty()) throw std::runtime_error(what + " " + p.error);
    if (p.raise_to == 0) return "";
    const rlim_t was = r.rlim_cur;
    r.rlim_cur = p.raise_to;
    if (setrlimit(RLIMIT_NOFILE, &r) != 0)
        throw std::runtime_error(what + ": cannot raise the open-file limit (RLIMIT_NOFILE) from " +
                                 std::to_string(was) + " to " + std::to_string(p.raise_to) + ": " +
                                 std::strerror(errno));
    return "raised the open-file limit (RLIMIT_NOFILE soft, hard " + std::to_string(r.rlim_max) + ") from " +
           std::to_string(was) + " to " + std::to_string(p.raise_to) + " for " + what;
}

}  // namespace zc
