#include "smc/smc_netlink.hpp"

#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>

#include "core/unique_fd.hpp"

namespace zc {

namespace {

template <class T>
T read_as(std::span<const uint8_t> bytes) {  // the caller checked the size
    T v;
    std::memcpy(&v, bytes.data(), sizeof(T));
    return v;
}

size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

}  // namespace

NetlinkMessage netlink_message(std::span<const uint8_t> bytes) {
    if (bytes.size() < sizeof(nlmsghdr))
        throw NetlinkFormatError("a netlink message shorter than its header (" + std::to_string(bytes.size()) +
                                 " bytes)");
    auto h = read_as<nlmsghdr>(bytes);
    if (h.nlmsg_len < sizeof(nlmsghdr) || h.nlmsg_len > bytes.size())
        throw NetlinkFormatError("a netlink message's length " + std::to_string(h.nlmsg_len) + " lies outside its " +
                                 std::to_string(bytes.size()) + " bytes");
    return {h.nlmsg_type, h.nlmsg_flags, bytes.subspan(sizeof(nlmsghdr), h.nlmsg_len - sizeof(nlmsghdr))};
}

std::vector<NetlinkMessage> netlink_messages(std::span<const uint8_t> bytes) {
    std::vector<NetlinkMessage> out;
    while (!bytes.empty()) {
        out.push_back(netlink_message(bytes));
        size_t step = std::min(bytes.size(), align4(sizeof(nlmsghdr) + out.back().payload.size()));
        bytes = bytes.subspan(step);
    }
    return out;
}

std::vector<NetlinkAttr> netlink_attrs(std::span<const uint8_t> bytes) {
    std::vector<NetlinkAttr> out;
    while (bytes.size() >= sizeof(nlattr)) {
        auto a = read_as<nlattr>(bytes);
        if (a.nla_len < sizeof(nlattr) || a.nla_len > bytes.size())
            throw NetlinkFormatError("a netlink attribute's length " + std::to_string(a.nla_len) +
                                     " lies outside its " + std::to_string(bytes.size()) + " bytes");
        out.push_back({static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK),
                       bytes.subspan(sizeof(nlattr), a.nla_len - sizeof(nlattr))});
        bytes = bytes.subspan(std::min(bytes.size(), align4(a.nla_len)));
    }
    if (!bytes.empty())
        throw NetlinkFormatError(std::to_string(bytes.size()) + " bytes after the last netlink attribute");
    return out;
}

uint64_t netlink_uint(const NetlinkAttr& a) {
    switch (a.data.size()) {
        case 1:
            return a.data[0];
        case 2:
            return read_as<uint16_t>(a.data);
        case 4:
            return read_as<uint32_t>(a.data);
        case 8:
            return read_as<uint64_t>(a.data);
        default:
            throw NetlinkFormatError("netlink attribute " + std::to_string(a.type) + " holds " +
                                     std::to_string(a.data.size()) + " bytes, not a number");
    }
}

std::vector<uint8_t> netlink_request(uint16_t type, uint16_t flags, std::span<const uint8_t> header) {
    std::vector<uint8_t> out(align4(sizeof(nlmsghdr) + header.size()), 0);
    nlmsghdr h{};
    h.nlmsg_len = static_cast<uint32_t>(out.size());
    h.nlmsg_type = type;
    h.nlmsg_flags = flags;
    std::memcpy(out.data(), &h, sizeof(h));
    std::memcpy(out.data() + sizeof(h), header.data(), header.size());
    return out;
}

void netlink_add_attr(std::vector<uint8_t>& request, uint16_t type, std::span<const uint8_t> data) {
    nlattr a{};
    a.nla_len = static_cast<uint16_t>(sizeof(nlattr) + data.size());
    a.nla_type = type;
    size_t at = request.size();
    request.resize(at + align4(a.nla_len), 0);
    std::memcpy(request.data() + at, &a, sizeof(a));
    std::memcpy(request.data() + at + sizeof(a), data.data(), data.size());
    uint32_t len = static_cast<uint32_t>(request.size());
    std::memcpy(request.data() + offsetof(nlmsghdr, nlmsg_len), &len, sizeof(len));
}

NetlinkAnswer netlink_exchange(int protocol, std::vector<uint8_t> request, std::chrono::milliseconds timeout) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    NetlinkAnswer out;
    auto fail = [&](int err, std::string what) {
        out.error = err;
        out.failure = std::move(what) + (err > 0 ? std::string(": ") + std::strerror(err) : "");
        return out;
    };
    UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol));
    if (!fd) return fail(errno, "opening a netlink socket (protocol " + std::to_string(protocol) + ")");
    constexpr uint32_t kSeq = 1;
    auto h = read_as<nlmsghdr>(request);
    h.nlmsg_seq = kSeq;
    std::memcpy(request.data(), &h, sizeof(h));
    const bool dump = (h.nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd.get(), request.data(), request.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) < 0)
        return fail(errno, "sending the netlink request");
    std::vector<uint8_t> buf(64 * 1024);  // the kernel's dumps fill at most 32 KiB per message batch
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
        if (left.count() <= 0)
            return fail(0, "no complete answer from the kernel within " + std::to_string(timeout.count()) + " ms");
        timeval tv{static_cast<time_t>(left.count() / 1000000), static_cast<suseconds_t>(left.count() % 1000000)};
        ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        ssize_t n = ::recv(fd.get(), buf.data(), buf.size(), 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return fail(0, "no complete answer from the kernel within " + std::to_string(timeout.count()) + " ms");
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail(errno, "reading the netlink answer");
        std::span<const uint8_t> got(buf.data(), static_cast<size_t>(n));
        size_t at = 0;
        for (const auto& m : netlink_messages(got)) {
            const size_t whole = sizeof(nlmsghdr) + m.payload.size();
            std::span<const uint8_t> bytes = got.subspan(at, whole);
            at = std::min(got.size(), at + align4(whole));
            if (read_as<nlmsghdr>(bytes).nlmsg_seq != kSeq) continue;  // not ours
            if (m.type == NLMSG_DONE) return out;
            if (m.type == NLMSG_ERROR) {
                if (m.payload.size() < sizeof(int))
                    throw NetlinkFormatError("a netlink error message without its code");
                int code = read_as<int>(m.payload);
                if (code == 0) return out;  // an acknowledgement
                return fail(-code, "the kernel refused the request");
            }
            out.messages.emplace_back(bytes.begin(), bytes.end());
            if (!dump) return out;
        }
    }
}

}  // namespace zc
