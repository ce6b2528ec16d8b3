#pragma once
// TCP with copies: send() from the user buffer into the socket, recv() out of it. The loops run on
// an already pinned thread and return when done; nothing inside them allocates or calls virtually.
#include <cstddef>

#include "transport/stream_counters.hpp"

namespace zc {

// Sends `message_size` bytes per call until the stop rule says so, then shuts the write side down
// so the receiver sees the end of the stream.
StreamCounters tcp_copy_send(int fd, const std::byte* buf, size_t message_size, const StopRule& stop);

// Receives into `buf` (`message_size` bytes per call) until the peer ends the stream.
StreamCounters tcp_copy_recv(int fd, std::byte* buf, size_t message_size);

}  // namespace zc
