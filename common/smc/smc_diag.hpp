#pragma once
// What the kernel says about SMC sockets: the smc_diag dump (NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY for
// AF_SMC; the smc_diag module), per socket its mode (SMC-R, SMC-D or TCP fallback), the fallback reason and
// the peer's diagnosis, the link (RDMA device, port, GIDs) or SMC-D buffer, the buffer (RMB) sizes, and the
// addresses, ports and inode a test matches its own sockets by. getsockopt says none of this.
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "smc/smc_codes.hpp"

namespace zc {

// socket(AF_SMC, SOCK_STREAM, protocol): SMCPROTO_SMC (IPv4) and SMCPROTO_SMC6 (IPv6), net/smc/smc.h's;
// Debian 12's linux-libc-dev does not have them in include/uapi/linux/smc.h.
constexpr int kSmcProtoSmc = 0, kSmcProtoSmc6 = 1;
constexpr std::chrono::milliseconds kSmcNetlinkTimeout{2000};

// One SMC socket as smc_diag reports it.
struct SmcConnection {
    uint8_t state = 0;          // the socket's TCP-like state (1 established, 10 listen)
    uint8_t mode = 0;           // SmcMode's value
    uint8_t shutdown = 0;       // SMC_DIAG_SHUTDOWN: RCV_SHUTDOWN (1) and SEND_SHUTDOWN (2) bits
    std::string local, remote;  // addresses (of the TCP socket SMC's handshake runs on)
    uint16_t local_port = 0, remote_port = 0;
    uint32_t uid = 0;
    uint64_t inode = 0;                       // fstat(fd).st_ino of the socket
    bool has_fallback = false;                // SMC_DIAG_FALLBACK was in the message
    uint32_t reason = 0, peer_diagnosis = 0;  // SMC_CLC_DECL_* values (smc/smc_codes.hpp names them)
    bool has_conninfo = false;                // SMC_DIAG_CONNINFO: the connection has SMC buffers
    uint32_t sndbuf_size = 0, rmb_size = 0, peer_rmb_size = 0;
    bool has_link = false;  // SMC_DIAG_LGRINFO: an SMC-R link group's link
    std::string ib_device, gid, peer_gid;
    uint32_t ib_port = 0, link_id = 0, role = 0;  // role: 0 client, 1 server (the link group's)
    bool has_dmb = false;                         // SMC_DIAG_DMBINFO: SMC-D's buffer
    uint64_t dmb_gid = 0, dmb_peer_gid = 0;
    bool fell_back() const { return mode == static_cast<uint8_t>(SmcMode::fallback); }
};

// One message of the dump (its payload: smc_diag_msg and its attributes). Throws NetlinkFormatError
// (smc/smc_netlink.hpp) when it is shorter than smc_diag_msg or an attribute is cut.
SmcConnection parse_smc_diag_message(std::span<const uint8_t> payload);

struct SmcDiagDump {
    std::vector<SmcConnection> connections;  // every SMC socket of this network namespace
    std::string error;                       // "" when the dump went through; else what to do
};
// Dumps this namespace's SMC sockets with every extension asked for; never throws.
SmcDiagDump dump_smc_connections(std::chrono::milliseconds timeout = kSmcNetlinkTimeout);

// Our own sockets: fd's inode (0 when fstat fails), and the connection with it, or by its local and
// remote ports (0: any), or nullptr.
uint64_t socket_inode(int fd);
const SmcConnection* find_smc_connection(const std::vector<SmcConnection>& all, uint64_t inode);
const SmcConnection* find_smc_connection(const std::vector<SmcConnection>& all, uint16_t local_port,
                                         uint16_t remote_port);

// "" when this kernel opens AF_SMC sockets; else what is missing and what to load. smc_diag's absence is
// said too (the kind can run without it, but cannot then say whether RDMA carried the bytes).
std::string smc_unavailable_reason();
// "" when the smc_diag dump answers; else why not and what to load.
std::string smc_diag_unavailable_reason();

}  // namespace zc
