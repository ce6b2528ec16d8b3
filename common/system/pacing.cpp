#include "system/pacing.hpp"

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <vector>

#include "core/unique_fd.hpp"

namespace zc {

std::string root_qdisc(const std::string& interface) {
    unsigned index = if_nametoindex(interface.c_str());
    if (!index) return {};
    UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
    if (!fd) return {};
    timeval tv{1, 0};  // a bounded wait: the kernel answers at once
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    struct {
        nlmsghdr nh;
        tcmsg tc;
    } req{};
    req.nh.nlmsg_len = sizeof(req);
    req.nh.nlmsg_type = RTM_GETQDISC;
    req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.tc.tcm_family = AF_UNSPEC;
    req.tc.tcm_ifindex = static_cast<int>(index);
    if (::send(fd.get(), &req, sizeof(req), 0) < 0) return {};
    std::vector<char> buf(32768);
    std::string root, any_fq;
    while (true) {
        ssize_t n = ::recv(fd.get(), buf.data(), buf.size(), 0);
        if (n <= 0) break;
        bool done = false;
        for (auto* nh = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(nh, static_cast<unsigned>(n));
             nh = NLMSG_NEXT(nh, n)) {
            if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
                done = true;
                break;
            }
            if (nh->nlmsg_type != RTM_NEWQDISC) continue;
            auto* tc = static_cast<tcmsg*>(NLMSG_DATA(nh));
            if (tc->tcm_ifindex != static_cast<int>(index)) continue;
            int alen = static_cast<int>(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)));
            for (auto* a = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(tc) + NLMSG_ALIGN(sizeof(*tc)));
                 RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
                if (a->rta_type != TCA_KIND) continue;
                std::string kind(static_cast<const char*>(RTA_DATA(a)));
                if (tc->tcm_parent == TC_H_ROOT) root = kind;
                if (kind == "fq") any_fq = kind;  // mq's per-queue children
            }
        }
        if (done) break;
    }
    if (root == "mq" && !any_fq.empty()) return "mq+fq";
    return root;
}

bool kernel_paces(int fd, uint64_t bits_per_s, const std::string& interface) {
    std::string q = root_qdisc(interface);
    if (q != "fq" && q != "mq+fq") return false;
    uint64_t bytes_per_s = bits_per_s / 8;
    return ::setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bytes_per_s, sizeof(bytes_per_s)) == 0;
}

}  // namespace zc
