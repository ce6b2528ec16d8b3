#include "tcp/tcp_flows.hpp"

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "socket/socket_calls.hpp"

namespace zc {

void TcpFlowSockets::interrupt() {
    for (auto& fd : fds) ::shutdown(fd.get(), SHUT_RDWR);
}

namespace {

constexpr int kStallMs = 10000;  // the longest silence of flows still open (a TCP data socket's, as elsewhere)
constexpr int kTickMs = 100;     // how often a waiting loop looks at its deadline and abort flag
constexpr size_t kMaxEvents = 1024;
// A stream flow's turn: what it may move before the next ready flow's (level-triggered, so a flow with
// more to move is reported again). Small messages then cost one epoll_wait per 64 KiB, not per message.
constexpr uint64_t kTurnBytes = 64 << 10;

bool aborted(const StopRule& stop) { return stop.abort && stop.abort->load(std::memory_order_relaxed); }

void fail(StreamCounters& c, const char* call) {
    c.error = errno;
    c.failed_call = call;
}

}  // namespace

TcpFlowSet::TcpFlowSet(const std::vector<int>& fds, uint32_t events, size_t message_size, size_t alignment)
    : fds_(fds),
      epoll_(epoll_create1(EPOLL_CLOEXEC)),
      buf_(message_size, alignment),
      bytes_(fds.size(), 0),
      events_(std::clamp<size_t>(fds.size(), 1, kMaxEvents)) {
    if (!epoll_) throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
    for (size_t i = 0; i < fds.size(); ++i) {
        int flags = fcntl(fds[i], F_GETFL);
        if (flags < 0 || fcntl(fds[i], F_SETFL, flags | O_NONBLOCK) != 0)
            throw std::runtime_error("fcntl O_NONBLOCK (flow " + std::to_string(i) + "): " + std::strerror(errno));
        epoll_event e{};
        e.events = events;
        e.data.u64 = i;
        if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fds[i], &e) != 0)
            throw std::runtime_error("epoll_ctl (flow " + std::to_string(i) + "): " + std::strerror(errno));
    }
}

int TcpFlowSet::wait(StreamCounters& c) {
    int ready = epoll_wait(epoll_.get(), events_.data(), static_cast<int>(events_.size()), kTickMs);
    if (ready >= 0) return ready;
    if (errno == EINTR) return 0;
    fail(c, "epoll_wait");
    return -1;
}

int TcpFlowSet::wait_bounded(const StopRule& stop, StreamCounters& c) {
    for (;;) {
        if (aborted(stop)) return -1;
        int ready = wait(c);
        if (ready != 0) {
            silent_ms_ = 0;
            return ready;
        }
        if ((silent_ms_ += kTickMs) >= kStallMs) {
            c.error = EAGAIN;
            c.failed_call = "epoll_wait";
            return -1;
        }
        return 0;  // the caller looks at its deadline
    }
}

void TcpFlowSet::forget(size_t flow) { epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fds_[flow], nullptr); }

uint64_t TcpFlowSet::segments_out() const {
    uint64_t n = 0;
    for (int fd : fds_) n += tcp_data_segments(fd, true);
    return n;
}

TcpFlowsSender::TcpFlowsSender(const std::vector<int>& fds, size_t message_size, size_t alignment)
    : TcpFlowSet(fds, EPOLLOUT, message_size, alignment) {}  // level-triggered: turns

StreamCounters TcpFlowsSender::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = buf_.size();
    bool done = false;
    while (!done) {
        // A sender's silence is a full window on every flow: the receiver's stall rule ends a dead peer.
        int ready = wait(c);
        if (ready < 0) break;
        if (ready == 0 && stop.next_length(c.bytes, n) == 0) break;
        for (int k = 0; k < ready && !done; ++k) {
            const size_t f = events_[k].data.u64;
            // A turn: sends until kTurnBytes moved (one send of a large -m) or the socket is full.
            for (uint64_t turn = 0; turn < kTurnBytes;) {
                size_t len = stop.next_length(c.bytes, n);
                if (len == 0) {
                    done = true;
                    break;
                }
                ssize_t r = ::send(fds_[f], buf_.data(), len, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (r > 0) {
                    turn += moved(f, r, c);
                    continue;
                }
                if (r < 0 && errno == EINTR) continue;
                if (r < 0 && errno != EAGAIN) {
                    fail(c, "send");
                    done = true;
                }
                break;
            }
        }
        stop.publish(c);
    }
    if (!aborted(stop))
        for (int fd : fds_) ::shutdown(fd, SHUT_WR);
    return c;
}

TcpFlowsReceiver::TcpFlowsReceiver(const std::vector<int>& fds, size_t message_size, size_t alignment)
    : TcpFlowSet(fds, EPOLLIN | EPOLLRDHUP, message_size, alignment) {}  // level-triggered: turns

StreamCounters TcpFlowsReceiver::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = buf_.size();
    size_t open = fds_.size();
    while (open > 0) {
        int ready = wait_bounded(stop, c);
        if (ready < 0) break;
        for (int k = 0; k < ready && open > 0; ++k) {
            const size_t f = events_[k].data.u64;
            // A turn: receives until kTurnBytes moved (one recv of a large -m) or nothing is queued.
            for (uint64_t turn = 0; turn < kTurnBytes;) {
                ssize_t r = ::recv(fds_[f], buf_.data(), n, MSG_DONTWAIT);
                if (r > 0) {
                    turn += moved(f, r, c);
                    continue;
                }
                if (r < 0 && errno == EINTR) continue;
                if (r == 0) {  // the sender shut this flow down: it is done
                    forget(f);
                    --open;
                } else if (errno != EAGAIN) {
                    fail(c, "recv");
                    open = 0;
                }
                break;
            }
        }
        stop.publish(c);
    }
    return c;
}

ssize_t TcpFlowSet::send_rest(size_t f, const FlowState& s, StreamCounters& c) {
    for (;;) {
        ssize_t r = ::send(fds_[f], buf_.data() + s.done, buf_.size() - s.done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r >= 0) {
            ++c.ops;
            return r;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return -1;
        fail(c, "send");
        return -2;
    }
}

ssize_t TcpFlowSet::recv_rest(size_t f, const FlowState& s, StreamCounters& c) {
    for (;;) {
        ssize_t r = ::recv(fds_[f], buf_.data() + s.done, buf_.size() - s.done, MSG_DONTWAIT);
        if (r > 0) {
            moved(f, r, c);
            return r;
        }
        if (r == 0) return 0;
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return -1;
        fail(c, "recv");
        return -2;
    }
}

void TcpFlowSet::finish(size_t f, FlowState& s) {
    forget(f);
    s.phase = FlowPhase::finished;
    --open_;
}

template <class Step>
StreamCounters TcpFlowSet::serve(const StopRule& stop, bool kick, StreamCounters& c, Step step) {
    uint64_t segs0 = segments_out();
    open_ = fds_.size();
    bool ok = true;
    for (size_t f = 0; kick && f < fds_.size() && ok; ++f) ok = step(f);
    while (ok && open_ > 0) {
        int ready = wait_bounded(stop, c);
        if (ready < 0) break;
        for (int k = 0; k < ready && ok; ++k) ok = step(events_[k].data.u64);
        stop.publish(c);
    }
    c.segments = segments_out() - segs0;
    return c;
}

TcpFlowsRrInitiator::TcpFlowsRrInitiator(const std::vector<int>& fds, size_t message_size, size_t alignment,
                                         LatencyHistogram& rtt)
    : TcpFlowSet(fds, EPOLLIN | EPOLLOUT | EPOLLET, message_size, alignment), state_(fds.size()), rtt_(rtt) {
    for (int fd : fds) set_no_delay(fd);
    rtt_.prepare();
}

// One flow's transactions as far as its socket lets them go without waiting.
bool TcpFlowsRrInitiator::step(size_t f, const StopRule& stop, StreamCounters& c) {
    FlowState& s = state_[f];
    const size_t n = buf_.size();
    while (s.phase != FlowPhase::finished) {
        if (s.phase == FlowPhase::sending) {
            if (s.done == 0) s.t0 = monotonic_ns();
            ssize_t r = send_rest(f, s, c);
            if (r < 0) return r == -1;
            if ((s.done += static_cast<uint64_t>(r)) == n) s = {FlowPhase::receiving, 0, s.t0};
            continue;
        }
        ssize_t r = recv_rest(f, s, c);
        if (r == 0) {  // the responder ended the flow: it went away
            errno = ECONNRESET;
            fail(c, "recv");
        }
        if (r <= 0) return r == -1;
        if ((s.done += static_cast<uint64_t>(r)) < n) continue;
        int64_t t1 = monotonic_ns();
        rtt_.record_transaction(s.t0, t1);
        ++c.messages;
        if (t1 >= stop.deadline_ns) {  // this flow's last transaction: the responder sees its end next
            ::shutdown(fds_[f], SHUT_WR);
            finish(f, s);
        } else {
            s = {FlowPhase::sending, 0, 0};
        }
    }
    return true;
}

StreamCounters TcpFlowsRrInitiator::run(const StopRule& stop) {
    StreamCounters c;
    return serve(stop, true, c, [&](size_t f) { return step(f, stop, c); });
}

TcpFlowsRrResponder::TcpFlowsRrResponder(const std::vector<int>& fds, size_t message_size, size_t alignment)
    : TcpFlowSet(fds, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, message_size, alignment),
      state_(fds.size(), FlowState{FlowPhase::receiving, 0, 0}) {
    for (int fd : fds) set_no_delay(fd);
}

// One flow's answers as far as its socket lets them go without waiting.
bool TcpFlowsRrResponder::step(size_t f, StreamCounters& c) {
    FlowState& s = state_[f];
    const size_t n = buf_.size();
    while (s.phase != FlowPhase::finished) {
        if (s.phase == FlowPhase::receiving) {
            ssize_t r = recv_rest(f, s, c);
            if (r == 0 && s.done == 0) {  // the initiator ended the flow between requests: done
                finish(f, s);
                return true;
            }
            if (r == 0) {  // ended inside a request
                errno = ECONNRESET;
                fail(c, "recv");
            }
            if (r <= 0) return r == -1;
            if ((s.done += static_cast<uint64_t>(r)) == n) s = {FlowPhase::sending, 0, 0};
            continue;
        }
        ssize_t r = send_rest(f, s, c);
        if (r < 0) return r == -1;
        if ((s.done += static_cast<uint64_t>(r)) == n) {
            ++c.messages;
            s = {FlowPhase::receiving, 0, 0};
        }
    }
    return true;
}

StreamCounters TcpFlowsRrResponder::run(const StopRule& stop) {
    StreamCounters c;
    return serve(stop, false, c, [&](size_t f) { return step(f, c); });
}

}  // namespace zc
