#pragma once
// The rsocket kind's connection: an rsocket descriptor (librdmacm's rsocket(3)), closed with rclose, not
// close. Held by the data connection as a KindConnection (core/data_connection.hpp).
namespace zc {

class RsocketFd {
public:
    RsocketFd() = default;
    explicit RsocketFd(int fd) : fd_(fd) {}
    RsocketFd(const RsocketFd&) = delete;
    RsocketFd& operator=(const RsocketFd&) = delete;
    RsocketFd(RsocketFd&& o) noexcept : fd_(o.fd_), abandoned_(o.abandoned_) { o.fd_ = -1; }
    RsocketFd& operator=(RsocketFd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = o.fd_;
            abandoned_ = o.abandoned_;
            o.fd_ = -1;
        }
        return *this;
    }
    ~RsocketFd() { reset(); }
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset();  // rclose (rsocket_fd.cpp), on a detached thread once abandoned
    // The peer may be gone: rclose sends a disconnect and waits for its completion, which a dead
    // peer never gives, so the close then runs on a detached thread (librdmacm gives up when the
    // queue pair's retries run out; a process that exits first loses nothing).
    void abandon() { abandoned_ = true; }
    // The side aborts (KindConnection::interrupt). No rshutdown: it can block behind the data thread's
    // own call; the rsocket loops look at their abort flag instead (rsocket_paths.cpp). Only the close
    // is let go.
    void interrupt() { abandon(); }

private:
    int fd_ = -1;
    bool abandoned_ = false;
};

}  // namespace zc
