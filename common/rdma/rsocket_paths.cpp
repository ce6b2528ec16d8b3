#include "rdma/rsocket_paths.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <rdma/rsocket.h>
#include <sys/mman.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/unique_fd.hpp"
#include "protocol/messages.hpp"
#include "rdma/rdma_connection.hpp"
#include "rdma/sockaddr_text.hpp"
#include "rdma/wire.hpp"
#include "socket/staged_stream_impl.hpp"

namespace zc {

std::byte Rsockets::pattern(uint64_t offset) { return static_cast<std::byte>(rdma_wire::pattern_byte(offset)); }
bool Rsockets::check(const std::byte* p, size_t n, uint64_t at, size_t message_size) {
    return rdma_wire::check_stream_chunk(p, n, at, message_size);
}

template class StagedStreamSender<Rsockets, cuda::CudaStageCopy>;
template class StagedStreamReceiver<Rsockets, cuda::CudaStageCopy>;
template class StagedStreamSender<Rsockets, HostStageCopy>;
template class StagedStreamReceiver<Rsockets, HostStageCopy>;

// rpoll is never given a timeout: in librdmacm before v63 (Debian 12 ships 44.0; fixed in the 44.12
// and 45.11 stable releases) an rpoll whose timeout runs out returns without undoing its count of
// polling threads, and from the next wakeup on every rpoll in the process spins without ever timing
// out until an rsocket is ready: a dead peer's never is, so the loop never saw its abort flag (and
// zcserver's accept leaked one per 100 ms wait). A timerfd in the same call bounds the wait instead:
// rpoll returns it as ready through its balanced path.
bool rsocket_wait_ready(int fd, short events, int ms) {
    static thread_local UniqueFd timer(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
    pollfd p[2] = {{fd, events, 0}, {timer.get(), POLLIN, 0}};
    if (!timer) {  // no timerfd (out of descriptors): sleep, then look without waiting in rpoll
        ::poll(nullptr, 0, std::min(ms, 10));
        return ::rpoll(p, 1, 0) > 0;
    }
    itimerspec when{};
    when.it_value.tv_sec = ms / 1000;
    when.it_value.tv_nsec = static_cast<long>(ms % 1000) * 1000000 + 1;  // + 1: 0 would disarm it
    ::timerfd_settime(timer.get(), 0, &when, nullptr);                   // re-arming also clears an expiry not read
    return ::rpoll(p, 2, -1) > 0 && p[0].revents != 0;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string err(const std::string& what) { return what + ": " + std::strerror(errno); }

// Reads exactly len bytes within `ms` (set-up only).
bool read_exact(int fd, void* out, size_t len, int ms) {
    auto* p = static_cast<char*>(out);
    auto deadline = Clock::now() + std::chrono::milliseconds(ms);
    size_t have = 0;
    while (have < len) {
        int left =
            static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
        if (left <= 0 || !rsocket_wait_ready(fd, POLLIN, left)) return false;
        ssize_t n = ::rrecv(fd, p + have, len - have, MSG_DONTWAIT);
        if (n == 0) return false;
        if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
        if (n > 0) have += static_cast<size_t>(n);
    }
    return true;
}

// rsockets cannot be woken from another thread: rshutdown may itself wait behind a blocked call,
// and a killed peer's credits never arrive, so a blocked rsend would wait forever. The data loops
// therefore never block inside librdmacm: a call that would block waits in rpoll for a bounded
// time, then looks at the abort flag (set when the peer's control connection vanished, or Ctrl-C).
constexpr int kAbortCheckMs = 200;

// After EAGAIN: false (with errno = ECANCELED) when the test is being aborted.
bool wait_unless_aborted(int fd, short events, const StopRule* stop) {
    if (stop && stop->abort && stop->abort->load(std::memory_order_relaxed)) {
        errno = ECANCELED;
        return false;
    }
    rsocket_wait_ready(fd, events, kAbortCheckMs);
    return true;
}

// `stop` = nullptr: set-up, where a plain blocking send is fine.
bool send_all(int fd, const void* data, size_t len, const StopRule* stop = nullptr) {
    const auto* p = static_cast<const char*>(data);
    const int flags = stop ? MSG_DONTWAIT : 0;
    while (len) {
        ssize_t n = ::rsend(fd, p, len, flags);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            if (!wait_unless_aborted(fd, POLLOUT, stop)) return false;
            continue;
        }
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

// Options that must be set before the connection exists (an accepted rsocket inherits the listener's).
void configure(int fd, const HalfSpec& half, Role) {
    {
        // rsockets do not autotune; their small default buffers cost ~30 % at 64K in the Soft-RoCE
        // guest, so without -s/-S both ends ask for 512 KiB (the registered copy buffers).
        uint64_t want = half.side.socket_buffer > 0 ? half.side.socket_buffer : 512 * 1024;
        int v = static_cast<int>(std::min<uint64_t>(want, 1 << 30));
        ::rsetsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
        ::rsetsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
    }
    if (rdma_params(half).inline_size > 0) {
        int v = static_cast<int>(rdma_params(half).inline_size);
        ::rsetsockopt(fd, SOL_RDMA, RDMA_INLINE, &v, sizeof(v));
    }
    if (rdma_op_of(transport_info(half.transport)) == RdmaOp::write) {
        // One mapping (the receiver's ring). Both ends set it: each sizes its table of the peer's
        // mappings from what the other announced at connection time, and riomap fails with ENOMEM
        // when the table is empty.
        int v = 1;
        if (::rsetsockopt(fd, SOL_RDMA, RDMA_IOMAPSIZE, &v, sizeof(v)) != 0)
            throw std::runtime_error(err("rsetsockopt RDMA_IOMAPSIZE"));
    }
    int one = 1;
    ::rsetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // notices and credits go at once
}

uint32_t iomap_slots(size_t msg, uint32_t tx_depth) { return rdma_wire::slots_per_qp(tx_depth, 1, msg); }

constexpr int kStallMs = 10000;  // as TCP's receive timeout and the verbs loops' stall limit

// One non-blocking call, retried after a bounded wait until it moves something or kStallMs pass.
template <typename Call>
ssize_t bounded(int fd, short events, Call call) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(kStallMs);
    while (true) {
        ssize_t n = call();
        if (n >= 0 || (errno != EAGAIN && errno != EINTR)) return n;
        if (Clock::now() > deadline) {
            errno = EAGAIN;
            return -1;
        }
        rsocket_wait_ready(fd, events, kAbortCheckMs);
    }
}

}  // namespace

ssize_t rsend_bounded(int fd, const void* p, size_t n) {
    return bounded(fd, POLLOUT, [&] { return ::rsend(fd, p, n, MSG_DONTWAIT); });
}
ssize_t rrecv_bounded(int fd, void* p, size_t n) {
    return bounded(fd, POLLIN, [&] { return ::rrecv(fd, p, n, MSG_DONTWAIT); });
}

// ---- rsocket: rsend / rrecv ----

RsocketSender::RsocketSender(int fd, size_t message_size, size_t alignment) : fd_(fd), buf_(message_size, alignment) {
    rdma_wire::fill_pattern(buf_.data(), message_size);
}

StreamCounters RsocketSender::run(const StopRule& stop) {
    StreamCounters c;
    const size_t msg = buf_.size();
    size_t off = 0;  // where the stream stands within the pattern
    while (size_t len = stop.next_length(c.bytes, msg)) {
        len = std::min(len, msg - off);
        ssize_t n = ::rsend(fd_, buf_.data() + off, len, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN && wait_unless_aborted(fd_, POLLOUT, &stop)) continue;
            c.error = errno;
            c.failed_call = "rsend";
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
        off += static_cast<size_t>(n);
        if (off == msg) off = 0;
    }
    if (!c.error && !stop.abort->load())
        ::rshutdown(fd_, SHUT_WR);  // the stream's end; never towards a dead peer: it can block
    return c;
}

StreamCounters RsocketReceiver::run(const StopRule& stop) {
    StreamCounters c;
    while (true) {
        ssize_t n = ::rrecv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT);
        if (n > 0) {
            if (!rdma_wire::check_stream_chunk(buf_.data(), static_cast<uint64_t>(n), c.bytes, msg_)) {
                c.error = EBADMSG;
                c.failed_call = "pattern check (rrecv returned bytes that were not sent)";
                break;
            }
            c.bytes += static_cast<uint64_t>(n);
            ++c.ops;
            stop.publish(c);
        } else if (n == 0) {
            break;
        } else if (errno == EAGAIN ? !wait_unless_aborted(fd_, POLLIN, &stop) : errno != EINTR) {
            c.error = errno;
            c.failed_call = "rrecv";
            break;
        }
    }
    return c;
}

// ---- rsocket-iomap: riowrite into the receiver's riomap'ed ring ----

RsocketIomapSender::RsocketIomapSender(int fd, size_t message_size, size_t alignment)
    : fd_(fd), buf_(message_size, alignment) {
    rdma_wire::fill_pattern(buf_.data(), message_size);
    struct {
        int64_t offset;
        uint32_t slots, pad;
    } where{};
    if (!read_exact(fd_, &where, sizeof(where), 10000) || where.slots == 0) {
        throw std::runtime_error("the receiver did not describe its riomap'ed buffer within 10 s");
    }
    offset_ = where.offset;
    slots_ = where.slots;
}

StreamCounters RsocketIomapSender::run(const StopRule& stop) {
    StreamCounters c;
    const size_t msg = buf_.size();
    uint32_t credits = slots_, slot = 0;
    uint32_t credit_buf[256];
    size_t credit_have = 0;  // bytes of a partly received credit record
    // flags 0: wait (bounded, watching the abort flag) for credits; MSG_DONTWAIT: take what is there.
    auto take_credits = [&](int flags) {
        ssize_t n = ::rrecv(fd_, reinterpret_cast<char*>(credit_buf) + credit_have, sizeof(credit_buf) - credit_have,
                            MSG_DONTWAIT);
        if (n == 0) {
            c.error = ECONNRESET;
            c.failed_call = "rrecv (credits)";
            return false;
        }
        if (n < 0) {
            if (errno == EINTR ||
                (errno == EAGAIN && (flags == MSG_DONTWAIT || wait_unless_aborted(fd_, POLLIN, &stop)))) {
                return true;
            }
            c.error = errno;
            c.failed_call = "rrecv (credits)";
            return false;
        }
        credit_have += static_cast<size_t>(n);
        size_t whole = credit_have / 4;
        for (size_t i = 0; i < whole; ++i) credits += credit_buf[i];
        size_t rest = credit_have % 4;
        if (rest) std::memmove(credit_buf, reinterpret_cast<char*>(credit_buf) + whole * 4, rest);
        credit_have = rest;
        return true;
    };
    while (size_t len = stop.next_length(c.bytes, msg)) {
        while (credits == 0) {
            ++credit_waits_;
            if (!take_credits(0)) goto done;
        }
        {
            size_t put = 0;
            while (put < len) {
                size_t n = ::riowrite(fd_, buf_.data() + put, len - put,
                                      offset_ + int64_t(slot) * int64_t(msg) + int64_t(put), MSG_DONTWAIT);
                if (n == static_cast<size_t>(-1)) {
                    if (errno == EINTR || (errno == EAGAIN && wait_unless_aborted(fd_, POLLOUT, &stop))) continue;
                    c.error = errno;
                    c.failed_call = "riowrite";
                    goto done;
                }
                put += n;
            }
            uint64_t notice = len;  // "slot `slot` now holds `len` bytes"
            if (!send_all(fd_, &notice, sizeof(notice), &stop)) {
                c.error = errno ? errno : ECONNRESET;
                c.failed_call = "rsend (notice)";
                goto done;
            }
        }
        --credits;
        slot = slot + 1 == slots_ ? 0 : slot + 1;
        c.bytes += len;
        ++c.ops;
        stop.publish(c);
        if (!take_credits(MSG_DONTWAIT)) break;
    }
done:
    if (!c.error && !stop.abort->load())
        ::rshutdown(fd_, SHUT_WR);  // the stream's end; never towards a dead peer: it can block
    return c;
}

RsocketIomapReceiver::RsocketIomapReceiver(int fd, size_t message_size, size_t alignment, uint32_t tx_depth)
    : fd_(fd),
      msg_(message_size),
      slots_(iomap_slots(message_size, tx_depth)),
      ring_(message_size * slots_, alignment) {
    auto t0 = Clock::now();
    off_t offset = ::riomap(fd_, ring_.data(), ring_.size(), PROT_WRITE, 0, -1);
    registration_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (offset == -1) throw std::runtime_error(err("riomap of " + std::to_string(ring_.size()) + " bytes"));
    struct {
        int64_t offset;
        uint32_t slots, pad;
    } where{offset, slots_, 0};
    if (!send_all(fd_, &where, sizeof(where))) throw std::runtime_error(err("rsend of the riomap offset"));
}

RsocketIomapReceiver::~RsocketIomapReceiver() { ::riounmap(fd_, ring_.data(), ring_.size()); }

StreamCounters RsocketIomapReceiver::run(const StopRule& stop) {
    StreamCounters c;
    const uint32_t announce = rdma_wire::announce_every(slots_);
    uint64_t notices[512];
    size_t have = 0;
    uint32_t slot = 0, freed = 0;
    while (true) {
        ssize_t n = ::rrecv(fd_, reinterpret_cast<char*>(notices) + have, sizeof(notices) - have, MSG_DONTWAIT);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR || (errno == EAGAIN && wait_unless_aborted(fd_, POLLIN, &stop))) continue;
            c.error = errno;
            c.failed_call = "rrecv";
            break;
        }
        have += static_cast<size_t>(n);
        size_t whole = have / 8;
        for (size_t i = 0; i < whole; ++i) {
            uint64_t len = notices[i];
            if (len > msg_ || !rdma_wire::check_and_poison(ring_.data() + size_t(slot) * msg_, len)) {
                c.error = EBADMSG;
                c.failed_call = "pattern check (an iowrite did not land as sent)";
                return c;
            }
            c.bytes += len;
            ++c.ops;
            stop.publish(c);
            slot = slot + 1 == slots_ ? 0 : slot + 1;
            if (++freed >= announce) {
                if (!send_all(fd_, &freed, sizeof(freed), &stop)) {
                    c.error = errno ? errno : ECONNRESET;
                    c.failed_call = "rsend (credits)";
                    return c;
                }
                freed = 0;
            }
        }
        size_t rest = have % 8;
        if (rest) std::memmove(notices, reinterpret_cast<char*>(notices) + whole * 8, rest);
        have = rest;
    }
    return c;
}

// ---- set-up ----

RsocketListener::RsocketListener(const std::string& bind_address, const HalfSpec& half, Role role) {
    require_rdma_device();
    sockaddr_storage ss = numeric_sockaddr(bind_address, 0);
    fd_ = RsocketFd(::rsocket(ss.ss_family, SOCK_STREAM, 0));
    if (!fd_) throw std::runtime_error(err("rsocket"));
    configure(fd_.get(), half, role);
    socklen_t len = ss.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (::rbind(fd_.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {
        throw std::runtime_error(err("rbind " + bind_address) +
                                 " (rsockets need an address on an RDMA device; not loopback)");
    }
    if (::rlisten(fd_.get(), half.streams + 8) != 0) {
        throw std::runtime_error(err("rlisten on " + bind_address) +
                                 " (rsockets need an address on an RDMA device; rdma_cm refuses loopback addresses)");
    }
    sockaddr_storage got{};
    socklen_t gl = sizeof(got);
    ::rgetsockname(fd_.get(), reinterpret_cast<sockaddr*>(&got), &gl);
    port_ = ntohs(got.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&got)->sin_port
                                           : reinterpret_cast<sockaddr_in6*>(&got)->sin6_port);
    int fl = ::rfcntl(fd_.get(), F_GETFL, 0);
    ::rfcntl(fd_.get(), F_SETFL, fl | O_NONBLOCK);
}

std::vector<DataConnection> RsocketListener::accept(int wanted, uint64_t token, Clock::time_point deadline,
                                                    const std::atomic<bool>& stopped) {
    std::vector<DataConnection> out;
    while (static_cast<int>(out.size()) < wanted) {
        if (stopped.load()) throw std::runtime_error(kStoppedBeforeStart);
        int left =
            static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
        if (left <= 0) {
            throw std::runtime_error("only " + std::to_string(out.size()) + " of " + std::to_string(wanted) +
                                     " rsocket data connections arrived in time");
        }
        if (!rsocket_wait_ready(fd_.get(), POLLIN, std::min(left, 100))) continue;
        RsocketFd s(::raccept(fd_.get(), nullptr, nullptr));
        if (!s) continue;
        int fl = ::rfcntl(s.get(), F_GETFL, 0);
        ::rfcntl(s.get(), F_SETFL, fl & ~O_NONBLOCK);
        uint64_t got = 0;
        // A silent stray delays us by at most 2 s; a wrong token is dropped.
        if (read_exact(s.get(), &got, sizeof(got), 2000) && got == token)
            out.emplace_back(make_kind_connection<RsocketFd>(std::move(s)));
    }
    return out;
}

RsocketFd connect_rsocket(const std::string& server_address, uint16_t port, uint64_t token, const HalfSpec& half,
                          Role role, std::chrono::milliseconds timeout) {
    require_rdma_device();
    sockaddr_storage ss = numeric_sockaddr(server_address, port);
    RsocketFd fd(::rsocket(ss.ss_family, SOCK_STREAM, 0));
    if (!fd) throw std::runtime_error(err("rsocket"));
    configure(fd.get(), half, role);
    socklen_t len = ss.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    // rconnect blocks for rdma_cm's address and route resolution and the connection itself.
    if (::rconnect(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {
        throw std::runtime_error(err("rconnect to " + server_address + ":" + std::to_string(port)) +
                                 (errno == ENODEV || errno == EADDRNOTAVAIL
                                      ? " (no RDMA route: the address must be on an RDMA interface, not loopback)"
                                  : errno == ECONNREFUSED ? " (nothing listens there: port closed or zcserver gone?)"
                                                          : ""));
    }
    (void)timeout;
    if (!send_all(fd.get(), &token, sizeof(token))) throw std::runtime_error(err("rsend of the token"));
    return fd;
}

}  // namespace zc
