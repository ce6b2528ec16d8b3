#pragma once
// A connected AF_UNIX stream socket pair for tests that run a sender and a receiver in one process.
#include <sys/socket.h>

#include <stdexcept>

#include "core/unique_fd.hpp"

namespace zc::test {

struct SocketPair {
    UniqueFd tx, rx;
    SocketPair() {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) throw std::runtime_error("socketpair");
        tx.reset(sv[0]);
        rx.reset(sv[1]);
    }
};

}  // namespace zc::test
