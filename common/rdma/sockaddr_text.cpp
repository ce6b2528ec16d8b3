#include "rdma/sockaddr_text.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <stdexcept>

namespace zc {

std::string sockaddr_text(const sockaddr* sa) {
    char buf[INET6_ADDRSTRLEN] = {};
    if (!sa) return {};
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof(buf));
    } else if (sa->sa_family == AF_INET6) {
        const auto* s6 = reinterpret_cast<const sockaddr_in6*>(sa);
        if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
            inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], buf, sizeof(buf));
        } else {
            inet_ntop(AF_INET6, &s6->sin6_addr, buf, sizeof(buf));
        }
    }
    return buf;
}

std::string sockaddr_text(const sockaddr_storage& ss) { return sockaddr_text(reinterpret_cast<const sockaddr*>(&ss)); }

sockaddr_storage numeric_sockaddr(const std::string& address, uint16_t port) {
    sockaddr_storage ss{};
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    std::string a = address;
    if (a.size() > 2 && a.front() == '[' && a.back() == ']') a = a.substr(1, a.size() - 2);
    if (a.empty()) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons(port);
        s4->sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (inet_pton(AF_INET, a.c_str(), &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons(port);
    } else if (inet_pton(AF_INET6, a.c_str(), &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(port);
    } else {
        throw std::invalid_argument("'" + address +
                                    "' is not a numeric IPv4 or IPv6 address (RDMA connects by address)");
    }
    return ss;
}

}  // namespace zc
