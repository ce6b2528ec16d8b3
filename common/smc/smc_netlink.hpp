#pragma once
// Netlink as SMC's read-backs use it: one request, its answer collected with every wait bounded, and the
// answer's messages and attributes walked with every length checked (a truncated or malformed message is
// a NetlinkFormatError, never a read past the buffer).
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace zc {

struct NetlinkFormatError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a request got back: its messages (each whole, header included; NLMSG_DONE and acks left out), or
// where it stopped. `error` is an errno: the socket's, or the kernel's answer (NLMSG_ERROR), 0 when none.
struct NetlinkAnswer {
    std::vector<std::vector<uint8_t>> messages;
    int error = 0;
    std::string failure;  // in words, "" when it went through
};

// Sends `request` (a netlink message: its header's length, type and flags set; sequence and port are
// filled here) on a fresh socket of `protocol` and reads the answer: a dump's (NLM_F_DUMP) to NLMSG_DONE,
// else its one message. No receive waits longer than what is left of `timeout`.
NetlinkAnswer netlink_exchange(int protocol, std::vector<uint8_t> request, std::chrono::milliseconds timeout);

// One message's header fields and payload (after the header), checked against the buffer.
struct NetlinkMessage {
    uint16_t type = 0, flags = 0;
    std::span<const uint8_t> payload;
};
NetlinkMessage netlink_message(std::span<const uint8_t> bytes);
// Every message in a receive buffer, in order.
std::vector<NetlinkMessage> netlink_messages(std::span<const uint8_t> bytes);

struct NetlinkAttr {
    uint16_t type = 0;  // NLA_TYPE_MASK applied
    std::span<const uint8_t> data;
};
// The attributes in `bytes` (a message's tail, or a nested attribute's data).
std::vector<NetlinkAttr> netlink_attrs(std::span<const uint8_t> bytes);
// An attribute's value as an unsigned number of its own width (1, 2, 4 or 8 bytes, host order).
uint64_t netlink_uint(const NetlinkAttr& a);

// Request building: a message of `type` and `flags` with `header` (a fixed struct) after nlmsghdr.
std::vector<uint8_t> netlink_request(uint16_t type, uint16_t flags, std::span<const uint8_t> header);
// Appends one attribute (padded to 4 bytes) to a request and updates its length.
void netlink_add_attr(std::vector<uint8_t>& request, uint16_t type, std::span<const uint8_t> data);

}  // namespace zc
