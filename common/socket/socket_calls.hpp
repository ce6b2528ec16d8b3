#pragma once
// The calls a byte-stream socket loop makes (the rr loops, the staged streams), as one policy per
// socket API: the kernel's sockets here, rsockets' (Rsockets) in rdma/rsocket_paths.hpp, so -T tcp and
// -T rsocket run the same loops. A policy is a template argument: no virtual call, nothing per
// message but the call itself. Every policy has these members:
//   send(fd, p, n), recv(fd, p, n)   one call each; recv returns what has arrived
//   recv_whole(fd, p, n)             as recv, asking for all n bytes where the API can (rr's receive)
//   shutdown(fd, how)                the end of the stream (SHUT_WR, SHUT_RDWR)
//   no_delay(fd)                     each message leaves when handed over (TCP_NODELAY)
//   segments(fd, out)                data segments the connection sent or received (0: not known)
//   pattern(offset)                  the stream's byte at an offset (what a receiver samples)
//   check(p, n, at, message_size)    the receiver's sample check of bytes at stream offset `at`
//   send_call, recv_call             the calls' names, for the error a failed call reports
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

#include "memory/pattern.hpp"

namespace zc {

// TCP_NODELAY on: a message goes out when it is handed over, not when Nagle lets it.
void set_no_delay(int fd);
// Data segments the connection sent (out) or received, in MSS units (TCP_INFO; 0 if unknown).
uint64_t tcp_data_segments(int fd, bool out);

struct KernelSockets {
    static constexpr const char* send_call = "send";
    static constexpr const char* recv_call = "recv";
    static ssize_t send(int fd, const void* p, size_t n) { return ::send(fd, p, n, MSG_NOSIGNAL); }
    static ssize_t recv(int fd, void* p, size_t n) { return ::recv(fd, p, n, 0); }
    // MSG_WAITALL: the kernel fills the whole message in one call however many segments it takes.
    static ssize_t recv_whole(int fd, void* p, size_t n) { return ::recv(fd, p, n, MSG_WAITALL); }
    static void shutdown(int fd, int how) { ::shutdown(fd, how); }
    static void no_delay(int fd) { set_no_delay(fd); }
    static uint64_t segments(int fd, bool out) { return tcp_data_segments(fd, out); }
    static std::byte pattern(uint64_t offset) { return pattern_byte(offset); }
    // The kernel's stream carries no sample check (TCP's copy receiver checks none either).
    static bool check(const std::byte*, size_t, uint64_t /*at*/, size_t /*message size*/) { return true; }
};

}  // namespace zc
