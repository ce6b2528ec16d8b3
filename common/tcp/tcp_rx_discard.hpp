#pragma once
// Receive paths that do not copy into user memory:
//   splice:  socket -> pipe -> /dev/null, the pages moved by reference (discarded)
//   trunc:   recv(MSG_TRUNC): the kernel drops the data, to measure the sender alone
#include <cstddef>

#include "core/stream_counters.hpp"
#include "core/unique_fd.hpp"

namespace zc {

class TcpSpliceReceiver {
public:
    TcpSpliceReceiver(int fd, size_t message_size);  // throws std::runtime_error
    StreamCounters run(const StopRule& stop);

private:
    int fd_;
    size_t chunk_;
    UniqueFd pipe_rd_, pipe_wr_, null_;
};

class TcpTruncReceiver {
public:
    TcpTruncReceiver(int fd, size_t message_size) : fd_(fd), chunk_(message_size) {}
    StreamCounters run(const StopRule& stop);

private:
    int fd_;
    size_t chunk_;
};

}  // namespace zc
