#include "protocol/frame.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace zc {

std::string encode_frame(std::string_view body) {
    std::string out;
    out.reserve(kFrameHeaderSize + body.size());
    out.append(kFrameMagic.data(), kFrameMagic.size());
    uint32_t n = static_cast<uint32_t>(body.size());
    char len[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                   static_cast<char>(n)};
    out.append(len, 4);
    out.append(body);
    return out;
}

size_t decode_frame_header(const std::array<char, kFrameHeaderSize>& h, size_t max_body) {
    if (std::memcmp(h.data(), kFrameMagic.data(), kFrameMagic.size()) != 0) {
        std::string seen;
        for (int i = 0; i < 4; ++i) seen += (h[i] >= 32 && h[i] < 127) ? h[i] : '.';
        throw ProtocolError("the peer does not speak the zcperf control protocol (first bytes '" + seen +
                            "'); is this the right host and port?");
    }
    auto b = [&](int i) { return static_cast<uint32_t>(static_cast<unsigned char>(h[i])); };
    size_t n = (b(4) << 24) | (b(5) << 16) | (b(6) << 8) | b(7);
    if (n > max_body) {
        throw ProtocolError("control message of " + std::to_string(n) + " bytes exceeds the limit of " +
                            std::to_string(max_body));
    }
    return n;
}

namespace {

using Clock = std::chrono::steady_clock;

void wait_ready(int fd, short events, Clock::time_point deadline, const char* what) {
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) throw ConnectionError(std::string("timed out ") + what + " the control connection");
        pollfd p{fd, events, 0};
        int rc = ::poll(&p, 1, static_cast<int>(left));
        if (rc > 0) return;
        if (rc < 0 && errno != EINTR) throw ConnectionError(std::string("poll: ") + std::strerror(errno));
    }
}

void read_exact(int fd, char* dst, size_t n, Clock::time_point deadline) {
    size_t got = 0;
    while (got < n) {
        wait_ready(fd, POLLIN, deadline, "reading");
        ssize_t r = ::recv(fd, dst + got, n - got, MSG_DONTWAIT);
        if (r == 0) throw ConnectionError("the peer closed the control connection");
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            throw ConnectionError(std::string("control connection: ") + std::strerror(errno));
        }
        got += static_cast<size_t>(r);
    }
}

}  // namespace

void write_all(int fd, std::string_view data, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    size_t sent = 0;
    while (sent < data.size()) {
        wait_ready(fd, POLLOUT, deadline, "writing");
        ssize_t r = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            throw ConnectionError(std::string("control connection: ") + std::strerror(errno));
        }
        sent += static_cast<size_t>(r);
    }
}

std::string read_frame(int fd, size_t max_body, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    std::array<char, kFrameHeaderSize> header;
    read_exact(fd, header.data(), header.size(), deadline);
    size_t n = decode_frame_header(header, max_body);
    std::string body(n, '\0');
    read_exact(fd, body.data(), n, deadline);
    return body;
}

}  // namespace zc
