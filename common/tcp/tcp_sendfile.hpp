#pragma once
// sendfile() from a memfd that holds the message (netperf's TCP_SENDFILE, iperf3 -Z): the kernel
// takes page references instead of copying from user memory.
#include <cstddef>

#include "core/stream_counters.hpp"
#include "core/unique_fd.hpp"

namespace zc {

class TcpSendfileSender {
public:
    // Creates and fills the memfd; throws std::runtime_error naming the cause.
    TcpSendfileSender(int fd, size_t message_size);
    StreamCounters run(const StopRule& stop);

private:
    int fd_;
    size_t size_;
    UniqueFd file_;
};

}  // namespace zc
