#include "socket/endpoint.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace zc {

Endpoint parse_endpoint(const std::string& text, uint16_t default_port) {
    Endpoint ep{text, default_port};
    std::string port;
    if (!text.empty() && text.front() == '[') {
        size_t close = text.find(']');
        if (close == std::string::npos) throw std::invalid_argument("address '" + text + "' lacks a closing ]");
        ep.host = text.substr(1, close - 1);
        if (close + 1 < text.size()) {
            if (text[close + 1] != ':') throw std::invalid_argument("address '" + text + "': expected :PORT after ]");
            port = text.substr(close + 2);
        }
    } else if (std::count(text.begin(), text.end(), ':') == 1) {
        size_t colon = text.find(':');
        ep.host = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    if (!port.empty()) {
        char* end = nullptr;
        long p = std::strtol(port.c_str(), &end, 10);
        if (*end != '\0' || p < 1 || p > 65535) throw std::invalid_argument("port '" + port + "' is not 1..65535");
        ep.port = static_cast<uint16_t>(p);
    }
    if (ep.host.empty()) throw std::invalid_argument("address '" + text + "' has no host");
    return ep;
}

namespace {
std::string address_of(const sockaddr_storage& ss) {
    char buf[INET6_ADDRSTRLEN] = {};
    if (ss.ss_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, buf, sizeof(buf));
    } else {
        const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&ss);
        if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
            inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], buf, sizeof(buf));
        } else {
            inet_ntop(AF_INET6, &s6->sin6_addr, buf, sizeof(buf));
        }
    }
    return buf;
}
}  // namespace

std::string local_address(int fd) {
    sockaddr_storage ss{};
    socklen_t l = sizeof(ss);
    getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &l);
    return address_of(ss);
}

std::string peer_address(int fd) {
    sockaddr_storage ss{};
    socklen_t l = sizeof(ss);
    getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &l);
    return address_of(ss);
}

}  // namespace zc
