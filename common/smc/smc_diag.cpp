#include "smc/smc_diag.hpp"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "core/unique_fd.hpp"
#include "smc/smc_netlink.hpp"

namespace zc {

namespace {

// The ABI this file reads (include/uapi/linux/smc_diag.h; Debian 12's linux-libc-dev has it): the sizes the
// fixtures and the kernel agree on.
static_assert(sizeof(smc_diag_msg) == 64);
static_assert(sizeof(smc_diag_fallback) == 8);
static_assert(sizeof(smc_diag_lgrinfo) == 147);
static_assert(static_cast<int>(SmcMode::smcr) == SMC_DIAG_MODE_SMCR &&
              static_cast<int>(SmcMode::fallback) == SMC_DIAG_MODE_FALLBACK_TCP &&
              static_cast<int>(SmcMode::smcd) == SMC_DIAG_MODE_SMCD);
// smcd_diag_dmbinfo grew (6.10: the GIDs' extensions); the 6.1 prefix is what is read.
constexpr size_t kDmbPrefix = offsetof(smcd_diag_dmbinfo, my_gid) + sizeof(uint64_t);

template <class T>
T read_prefix(std::span<const uint8_t> bytes) {  // a struct from its bytes; a shorter one zero-filled
    T v{};
    std::memcpy(&v, bytes.data(), std::min(bytes.size(), sizeof(T)));
    return v;
}

std::string text_of(const uint8_t* s, size_t max) {
    return std::string(reinterpret_cast<const char*>(s), strnlen(reinterpret_cast<const char*>(s), max));
}

// smc_diag fills idiag_src/dst[0] for an SMCPROTO_SMC socket and all four words for SMCPROTO_SMC6; the
// family field says AF_SMC either way, so the other words tell them apart (an IPv6 address whose last 96
// bits are zero would read as IPv4: none a connected socket has).
std::string address(const uint32_t (&a)[4]) {
    char out[INET6_ADDRSTRLEN] = {};
    if (a[1] == 0 && a[2] == 0 && a[3] == 0) return inet_ntop(AF_INET, &a[0], out, sizeof(out)) ? out : "";
    return inet_ntop(AF_INET6, a, out, sizeof(out)) ? out : "";
}

}  // namespace

SmcConnection parse_smc_diag_message(std::span<const uint8_t> payload) {
    if (payload.size() < sizeof(smc_diag_msg))
        throw NetlinkFormatError(fmt::format("an smc_diag message of {} bytes, shorter than smc_diag_msg's {}",
                                             payload.size(), sizeof(smc_diag_msg)));
    const auto m = read_prefix<smc_diag_msg>(payload);
    SmcConnection c;
    c.state = m.diag_state;
    c.mode = m.diag_mode;
    c.local = address(m.id.idiag_src);
    c.remote = address(m.id.idiag_dst);
    c.local_port = ntohs(m.id.idiag_sport);
    c.remote_port = ntohs(m.id.idiag_dport);
    c.uid = m.diag_uid;
    c.inode = m.diag_inode;
    auto need = [](const NetlinkAttr& a, size_t n, const char* what) {
        if (a.data.size() < n)
            throw NetlinkFormatError(fmt::format("smc_diag's {} holds {} bytes, not {}", what, a.data.size(), n));
    };
    for (const auto& a : netlink_attrs(payload.subspan(sizeof(smc_diag_msg)))) {
        switch (a.type) {
            case SMC_DIAG_FALLBACK: {
                need(a, sizeof(smc_diag_fallback), "SMC_DIAG_FALLBACK");
                const auto f = read_prefix<smc_diag_fallback>(a.data);
                c.has_fallback = true;
                c.reason = f.reason;
                c.peer_diagnosis = f.peer_diagnosis;
                break;
            }
            case SMC_DIAG_CONNINFO: {
                need(a, offsetof(smc_diag_conninfo, rx_prod), "SMC_DIAG_CONNINFO");
                const auto ci = read_prefix<smc_diag_conninfo>(a.data);
                c.has_conninfo = true;
                c.sndbuf_size = ci.sndbuf_size;
                c.rmb_size = ci.rmbe_size;
                c.peer_rmb_size = ci.peer_rmbe_size;
                break;
            }
            case SMC_DIAG_LGRINFO: {
                need(a, sizeof(smc_diag_lgrinfo), "SMC_DIAG_LGRINFO");
                const auto l = read_prefix<smc_diag_lgrinfo>(a.data);
                c.has_link = true;
                c.link_id = l.lnk[0].link_id;
                c.ib_device = text_of(l.lnk[0].ibname, sizeof(l.lnk[0].ibname));
                c.ib_port = l.lnk[0].ibport;
                c.gid = text_of(l.lnk[0].gid, sizeof(l.lnk[0].gid));
                c.peer_gid = text_of(l.lnk[0].peer_gid, sizeof(l.lnk[0].peer_gid));
                c.role = l.role;
                break;
            }
            case SMC_DIAG_DMBINFO: {
                need(a, kDmbPrefix, "SMC_DIAG_DMBINFO");
                const auto d = read_prefix<smcd_diag_dmbinfo>(a.data);
                c.has_dmb = true;
                c.dmb_gid = d.my_gid;
                c.dmb_peer_gid = d.peer_gid;
                break;
            }
            case SMC_DIAG_SHUTDOWN:
                need(a, 1, "SMC_DIAG_SHUTDOWN");
                c.shutdown = a.data[0];
                break;
            default:
                break;  // what later kernels add
        }
    }
    return c;
}

SmcDiagDump dump_smc_connections(std::chrono::milliseconds timeout) {
    SmcDiagDump out;
    smc_diag_req req{};
    req.diag_family = AF_SMC;
    // diag_ext's bit (N - 1) asks for extension N (net/smc/smc_diag.c); the fallback comes unasked.
    req.diag_ext = static_cast<uint8_t>((1u << (SMC_DIAG_CONNINFO - 1)) | (1u << (SMC_DIAG_LGRINFO - 1)) |
                                        (1u << (SMC_DIAG_DMBINFO - 1)));
    auto request = netlink_request(SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP,
                                   {reinterpret_cast<const uint8_t*>(&req), sizeof(req)});
    try {
        NetlinkAnswer a = netlink_exchange(NETLINK_SOCK_DIAG, std::move(request), timeout);
        if (!a.failure.empty()) {
            out.error = a.error == ENOENT
                            ? "the kernel has no smc_diag (the SMC socket dump): modprobe smc_diag (CONFIG_SMC_DIAG)"
                            : "the smc_diag dump failed: " + a.failure;
            return out;
        }
        for (const auto& bytes : a.messages) {
            NetlinkMessage m = netlink_message(bytes);
            if (m.type == SOCK_DIAG_BY_FAMILY) out.connections.push_back(parse_smc_diag_message(m.payload));
        }
    } catch (const NetlinkFormatError& e) {
        out.connections.clear();
        out.error = std::string("the kernel's smc_diag answer was malformed: ") + e.what();
    }
    return out;
}

uint64_t socket_inode(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 ? st.st_ino : 0;
}

const SmcConnection* find_smc_connection(const std::vector<SmcConnection>& all, uint64_t inode) {
    for (const auto& c : all)
        if (inode != 0 && c.inode == inode) return &c;
    return nullptr;
}

const SmcConnection* find_smc_connection(const std::vector<SmcConnection>& all, uint16_t local_port,
                                         uint16_t remote_port) {
    for (const auto& c : all)
        if ((!local_port || c.local_port == local_port) && (!remote_port || c.remote_port == remote_port)) return &c;
    return nullptr;
}

std::string smc_diag_unavailable_reason() { return dump_smc_connections().error; }

std::string smc_unavailable_reason() {
    UniqueFd fd(::socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, kSmcProtoSmc));
    if (!fd) {
        const int err = errno;
        const std::string diag = smc_diag_unavailable_reason();
        const std::string diag_said = diag.empty() ? "smc_diag answers" : "and " + diag;
        if (err == EAFNOSUPPORT)
            return "this kernel has no SMC sockets (AF_SMC): modprobe -a smc smc_diag (a kernel built with CONFIG_SMC "
                   "and CONFIG_SMC_DIAG; Debian's builds both as modules), then give SMC-R an RDMA device (modprobe "
                   "rdma_rxe; rdma link add rxe0 type rxe netdev IF); " +
                   diag_said;
        return std::string("socket(AF_SMC) failed: ") + std::strerror(err) + "; " + diag_said;
    }
    if (std::string diag = smc_diag_unavailable_reason(); !diag.empty())
        return "SMC sockets open, but " + diag + ": without it zcperf cannot say whether RDMA carried the bytes";
    return "";
}

}  // namespace zc
