#include "rdma/provider_name.hpp"

#include <linux/netlink.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "core/unique_fd.hpp"

namespace zc {

namespace {

// rdma-core's provider directory names (providers/<name>), by the kernel's driver id.
const char* driver_id_name(uint64_t id) {
    switch (id) {
        case RDMA_DRIVER_MLX5:
            return "mlx5";
        case RDMA_DRIVER_MLX4:
            return "mlx4";
        case RDMA_DRIVER_CXGB3:
            return "cxgb3";
        case RDMA_DRIVER_CXGB4:
            return "cxgb4";
        case RDMA_DRIVER_MTHCA:
            return "mthca";
        case RDMA_DRIVER_BNXT_RE:
            return "bnxt_re";
        case RDMA_DRIVER_OCRDMA:
            return "ocrdma";
        case RDMA_DRIVER_NES:
            return "nes";
        case RDMA_DRIVER_IRDMA:
            return "irdma";
        case RDMA_DRIVER_VMW_PVRDMA:
            return "vmw_pvrdma";
        case RDMA_DRIVER_QEDR:
            return "qedr";
        case RDMA_DRIVER_HNS:
            return "hns";
        case RDMA_DRIVER_USNIC:
            return "usnic";
        case RDMA_DRIVER_RXE:
            return "rxe";
        case RDMA_DRIVER_HFI1:
            return "hfi1";
        case RDMA_DRIVER_QIB:
            return "qib";
        case RDMA_DRIVER_EFA:
            return "efa";
        case RDMA_DRIVER_SIW:
            return "siw";
        case RDMA_DRIVER_ERDMA:
            return "erdma";
        default:
            return nullptr;
    }
}

void put_attr(std::byte* buf, size_t& len, uint16_t type, const void* data, size_t n) {
    nlattr a{static_cast<uint16_t>(NLA_HDRLEN + n), type};
    std::memcpy(buf + len, &a, sizeof(a));
    std::memcpy(buf + len + NLA_HDRLEN, data, n);
    len += NLA_ALIGN(NLA_HDRLEN + n);
}

// RDMA_NLDEV_CMD_GET_CHARDEV for "uverbs" on device `index`: the reply carries the driver id.
// -1 where the kernel does not answer it (older than 5.1, or no uverbs).
int64_t uverbs_driver_id(int index) {
    UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA));
    if (fd.get() < 0) return -1;
    timeval tv{1, 0};
    setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    alignas(nlmsghdr) std::byte req[128]{};
    size_t len = NLMSG_HDRLEN;
    uint32_t dev = static_cast<uint32_t>(index);
    put_attr(req, len, RDMA_NLDEV_ATTR_DEV_INDEX, &dev, sizeof(dev));
    put_attr(req, len, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", sizeof("uverbs"));
    nlmsghdr h{};
    h.nlmsg_len = static_cast<uint32_t>(len);
    h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV);
    h.nlmsg_flags = NLM_F_REQUEST;
    h.nlmsg_seq = 1;
    std::memcpy(req, &h, sizeof(h));
    sockaddr_nl to{};
    to.nl_family = AF_NETLINK;
    if (::sendto(fd.get(), req, len, 0, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != static_cast<ssize_t>(len))
        return -1;
    alignas(nlmsghdr) std::byte buf[8192];
    ssize_t n = ::recv(fd.get(), buf, sizeof(buf), 0);
    if (n < static_cast<ssize_t>(NLMSG_HDRLEN)) return -1;
    nlmsghdr rh;
    std::memcpy(&rh, buf, sizeof(rh));
    if (rh.nlmsg_type == NLMSG_ERROR || rh.nlmsg_len > static_cast<uint32_t>(n)) return -1;
    // The attributes follow the header directly (RDMA netlink has no family header).
    for (size_t off = NLMSG_HDRLEN; off + NLA_HDRLEN <= rh.nlmsg_len;) {
        nlattr a;
        std::memcpy(&a, buf + off, sizeof(a));
        if (a.nla_len < NLA_HDRLEN || off + a.nla_len > rh.nlmsg_len) break;
        if ((a.nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID) {
            // The kernel puts a u32 (the uapi header says u64): take either.
            if (a.nla_len == NLA_HDRLEN + 4) {
                uint32_t v;
                std::memcpy(&v, buf + off + NLA_HDRLEN, 4);
                return v;
            }
            if (a.nla_len == NLA_HDRLEN + 8) {
                uint64_t v;
                std::memcpy(&v, buf + off + NLA_HDRLEN, 8);
                return static_cast<int64_t>(v);
            }
        }
        off += NLA_ALIGN(a.nla_len);
    }
    return -1;
}

}  // namespace

std::string provider_name(ibv_device* dev) {
    if (int index = ibv_get_device_index(dev); index >= 0) {
        if (int64_t id = uverbs_driver_id(index); id >= 0)
            if (const char* name = driver_id_name(static_cast<uint64_t>(id))) return name;
    }
    std::error_code ec;
    auto driver = std::filesystem::read_symlink(std::filesystem::path(dev->ibdev_path) / "device" / "driver", ec);
    return ec ? std::string("unknown") : driver.filename().string();
}

}  // namespace zc
