#pragma once
// One stream's data connection, whatever carries it: a TCP socket, an rsocket, or an RDMA
// connection (queue pairs connected with rdma_cm, with their PD, CQ, buffer and MR). SideRunner
// holds one per stream; the data path is built on it once, before the measured interval.
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/unique_fd.hpp"

namespace zc {

// An rsocket descriptor (librdmacm's rsocket(3)): closed with rclose, not close. The rdma layer makes
// them and hands in how to close one (rdma/data_connection.cpp), so this layer links without librdmacm.
class RsocketFd {
public:
    using Close = void (*)(int fd, bool abandoned);
    RsocketFd() = default;
    RsocketFd(int fd, Close close) : fd_(fd), close_(close) {}
    RsocketFd(const RsocketFd&) = delete;
    RsocketFd& operator=(const RsocketFd&) = delete;
    RsocketFd(RsocketFd&& o) noexcept : fd_(o.fd_), close_(o.close_), abandoned_(o.abandoned_) { o.fd_ = -1; }
    RsocketFd& operator=(RsocketFd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = o.fd_;
            close_ = o.close_;
            abandoned_ = o.abandoned_;
            o.fd_ = -1;
        }
        return *this;
    }
    ~RsocketFd() { reset(); }
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset() {
        if (fd_ >= 0 && close_) close_(fd_, abandoned_);
        fd_ = -1;
        abandoned_ = false;
    }
    // The peer may be gone: rclose sends a disconnect and waits for its completion, which a dead
    // peer never gives, so the close then runs on a detached thread (librdmacm gives up when the
    // queue pair's retries run out; a process that exits first loses nothing).
    void abandon() { abandoned_ = true; }

private:
    int fd_ = -1;
    Close close_ = nullptr;
    bool abandoned_ = false;
};

// An RDMA connection (rdma/rdma_connection.hpp) is deleted by the function the rdma layer made it
// with (make_rdma_connection), so this layer needs neither its type nor its code.
class RdmaConnection;
struct RdmaConnectionDeleter {
    void (*destroy)(RdmaConnection*) = nullptr;
    void operator()(RdmaConnection* c) const {
        if (c && destroy) destroy(c);
    }
};
using RdmaConnectionPtr = std::unique_ptr<RdmaConnection, RdmaConnectionDeleter>;

// --flows N (issue #28): one stream's N TCP connections, served by one thread through one epoll
// (tcp/tcp_flows.hpp). A stream is a thread; with flows, its connection is this set.
struct TcpFlowSockets {
    std::vector<UniqueFd> fds;
};

// A TCP socket with a session a kind set up over it (an OpenSSL session and what the kind read before
// the handshake): the kind knows the session's type and made the pointer with its deleter, so this layer
// links without the library. The session is freed first, then the socket closed.
struct SessionSocket {
    UniqueFd fd;
    std::shared_ptr<void> session;
};

using DataConnection = std::variant<UniqueFd, RsocketFd, RdmaConnectionPtr, TcpFlowSockets, SessionSocket>;

// The TCP socket of a TCP connection (the first flow's of a set of flows; a session's socket), else -1.
int tcp_fd(const DataConnection& c);
// Wakes a thread blocked on the connection (abort: the peer vanished, Ctrl-C): shutdown for
// sockets; rsocket and verbs loops never block unbounded and look at their abort flag instead.
void interrupt(DataConnection& c);

}  // namespace zc
