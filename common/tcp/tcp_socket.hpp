#pragma once
// TCP connection set-up for control and data connections: every step bounded in time, every error
// phrased so the user knows what to do next.
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "core/unique_fd.hpp"
#include "socket/endpoint.hpp"
#include "tcp/tcp_tuning.hpp"

namespace zc {

// Connects to host:port within `timeout`. `socket_buffer` > 0 sets SO_SNDBUF and SO_RCVBUF first
// (before connect, so the window scale is negotiated for it), and `tuning` (tcp_tuning.hpp) too. Throws
// std::runtime_error.
UniqueFd connect_tcp(const Endpoint& ep, std::chrono::milliseconds timeout, uint64_t socket_buffer = 0,
                     const TcpTuning& tuning = {});

// Listens on `address` (numeric, "" = any) and `port` (0 = ephemeral). Returns the fd and the port.
// `socket`: TCP's, or the kind's own. Throws std::runtime_error naming the failed call and errno's text.
std::pair<UniqueFd, uint16_t> listen_tcp(const std::string& address, uint16_t port, int backlog,
                                         uint64_t socket_buffer = 0, const StreamSocket& socket = {});

void set_socket_buffers(int fd, uint64_t bytes);
std::pair<uint64_t, uint64_t> socket_buffers(int fd);  // effective {SO_SNDBUF, SO_RCVBUF}
// SO_RCVLOWAT: a blocked reader (or poll) wakes once `bytes` are queued, or at FIN, or when the
// window would otherwise close (the kernel caps it at half the receive buffer). Throws on failure.
void set_receive_low_water(int fd, uint64_t bytes);
uint64_t receive_low_water(int fd);  // in force, as the kernel capped it
void set_receive_timeout(int fd, std::chrono::milliseconds timeout);

}  // namespace zc
