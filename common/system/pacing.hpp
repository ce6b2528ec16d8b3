#pragma once
// The kernel's side of -b/--bitrate: SO_MAX_PACING_RATE caps a socket's rate, but only a qdisc that
// paces (fq) honours it for every protocol (TCP also paces itself; UDP does not), so the qdisc of the
// egress device decides whether the kernel paces or the sender's own clock must (core/pacer.hpp).
#include <cstdint>
#include <string>

namespace zc {

// The root qdisc of an interface over rtnetlink: "fq", "noqueue" (lo, veth), "fq_codel", "mq+fq"
// (multi-queue with fq children), ...; "" when it cannot be read.
std::string root_qdisc(const std::string& interface);

// Asks the kernel to pace the connected socket `fd` at `bits_per_s` (SO_MAX_PACING_RATE) when the
// interface's qdisc is fq (or mq over fq) and returns true; false: the caller's own clock must pace.
bool kernel_paces(int fd, uint64_t bits_per_s, const std::string& interface);

}  // namespace zc
