#pragma once
// Numeric text of a socket address (IPv4-mapped IPv6 shown as IPv4), and the reverse for rdma_cm.
#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace zc {

std::string sockaddr_text(const sockaddr_storage& ss);
std::string sockaddr_text(const sockaddr* sa);
// Numeric IPv4/IPv6 address and port -> sockaddr; throws std::invalid_argument (rdma_cm needs numbers:
// the data goes to the address the control connection reached).
sockaddr_storage numeric_sockaddr(const std::string& address, uint16_t port);

}  // namespace zc
