// SMC on a real kernel (label rdma: the Soft-RoCE guest of scripts/rdma_vm.sh, Debian 6.1, where
// `modprobe -a smc smc_diag` works): an AF_SMC listener and client over 127.0.0.1 move bytes, then the
// smc_diag dump and SMC's netlink counters are read back and decoded. Traffic to a host's own address goes
// through lo, which no RDMA device serves, so both ends fall back to TCP: the client for want of a device
// (0x03030000), the server because its peer declined (0x05000000) with the client's reason as the peer's
// diagnosis; the fallback counters rise and no byte goes through an RMB. Skipped, with what to load, where
// the kernel has no AF_SMC sockets.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "core/unique_fd.hpp"
#include "smc/smc_codes.hpp"
#include "smc/smc_diag.hpp"
#include "smc/smc_report.hpp"
#include "smc/smc_stats.hpp"

using namespace zc;

namespace {

constexpr uint32_t kNoSmcDevice = 0x03030000, kPeerDeclined = 0x05000000;
constexpr int kWaitMs = 10000;  // each step's bound: SMC's own handshake waits at most 6 s (CLC_WAIT_TIME)

bool smc_sockets() {
    UniqueFd fd(::socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, kSmcProtoSmc));
    return static_cast<bool>(fd);
}

void bound_waits(int fd) {
    timeval tv{kWaitMs / 1000, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

std::string say(const SmcConnection& c) {
    return std::string(smc_mode_name(c.mode)) + " " + c.local + ":" + std::to_string(c.local_port) + " -> " + c.remote +
           ":" + std::to_string(c.remote_port) + ", reason " + smc_code_label(c.reason) + ", peer diagnosis " +
           smc_code_label(c.peer_diagnosis);
}

}  // namespace

TEST(SmcKernel, LoopbackFallsBackWithTheNamedReasonsAndTheCountersRise) {
    // The guest's kernel has smc.ko and smc_diag.ko as modules; a host without them skips with the reason.
    if (!smc_sockets() && std::system("modprobe -a smc smc_diag >/dev/null 2>&1") != 0 && !smc_sockets())
        GTEST_SKIP() << smc_unavailable_reason();
    if (!smc_sockets()) GTEST_SKIP() << smc_unavailable_reason();
    if (std::string why = smc_diag_unavailable_reason(); !why.empty()) {
        if (std::system("modprobe smc_diag >/dev/null 2>&1") != 0) GTEST_SKIP() << why;
    }
    const SmcStats before = read_smc_stats();
    ASSERT_TRUE(before.present) << "SMC's counters: " << before.absent;

    UniqueFd listener(::socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, kSmcProtoSmc));
    ASSERT_TRUE(listener) << std::strerror(errno);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << std::strerror(errno);
    ASSERT_EQ(::listen(listener.get(), 4), 0) << std::strerror(errno);
    socklen_t len = sizeof(addr);
    ASSERT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len), 0);

    UniqueFd client(::socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, kSmcProtoSmc));
    ASSERT_TRUE(client);
    bound_waits(client.get());
    ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << std::strerror(errno);
    pollfd p{listener.get(), POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, kWaitMs), 1) << "no connection to accept within " << kWaitMs << " ms";
    UniqueFd server(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    ASSERT_TRUE(server) << std::strerror(errno);
    bound_waits(server.get());

    // Bytes move (over TCP, as it turns out).
    std::vector<char> buf(256 << 10, 'x');
    constexpr size_t kBytes = 4 << 20;
    size_t sent = 0, received = 0;
    while (sent < kBytes) {
        ssize_t n = ::send(client.get(), buf.data(), std::min(buf.size(), kBytes - sent), MSG_DONTWAIT);
        if (n > 0) sent += static_cast<size_t>(n);
        ssize_t r = ::recv(server.get(), buf.data(), buf.size(), n > 0 ? MSG_DONTWAIT : 0);
        if (r > 0) received += static_cast<size_t>(r);
        ASSERT_TRUE(n > 0 || r > 0 || errno == EAGAIN) << std::strerror(errno);
    }
    while (received < kBytes) {
        ssize_t r = ::recv(server.get(), buf.data(), buf.size(), 0);
        ASSERT_GT(r, 0) << "after " << received << " of " << kBytes << " B: " << std::strerror(errno);
        received += static_cast<size_t>(r);
    }

    SmcDiagDump dump = dump_smc_connections();
    ASSERT_TRUE(dump.error.empty()) << dump.error;
    const SmcConnection* c = find_smc_connection(dump.connections, socket_inode(client.get()));
    const SmcConnection* s = find_smc_connection(dump.connections, socket_inode(server.get()));
    ASSERT_NE(c, nullptr) << "the client's socket is not in the smc_diag dump (" << dump.connections.size()
                          << " sockets)";
    ASSERT_NE(s, nullptr) << "the server's socket is not in the smc_diag dump";
    std::cout << "client: " << say(*c) << "\nserver: " << say(*s) << "\n";
    // The same connection seen from both ends: its ports mirror each other.
    EXPECT_EQ(c->local_port, s->remote_port);
    EXPECT_EQ(c->remote_port, s->local_port);
    EXPECT_EQ(c->remote_port, ntohs(addr.sin_port));
    EXPECT_EQ(c->local, "127.0.0.1");
    EXPECT_TRUE(c->fell_back()) << say(*c);
    EXPECT_TRUE(s->fell_back()) << say(*s);
    EXPECT_TRUE(c->has_fallback);
    EXPECT_EQ(c->reason, kNoSmcDevice) << smc_code_text(c->reason);
    EXPECT_EQ(s->reason, kPeerDeclined) << smc_code_text(s->reason);
    EXPECT_EQ(s->peer_diagnosis, kNoSmcDevice) << smc_code_text(s->peer_diagnosis);
    EXPECT_FALSE(c->has_link);  // no link group: nothing went over RDMA

    const SmcStats after = read_smc_stats();
    ASSERT_TRUE(after.present) << after.absent;
    const SmcStats d = delta(before, after);
    std::cout << "counters over the test: client fallbacks " << d.client_fallbacks << ", server fallbacks "
              << d.server_fallbacks << ", SMC-R handshakes " << d.smcr.handshakes() << ", SMC-R bytes sent "
              << d.smcr.tx_bytes << (d.note.empty() ? "" : " (" + d.note + ")") << "\n";
    for (const auto& r : d.reasons)
        std::cout << "  " << (r.server ? "server " : "client ") << smc_code_label(r.code) << " x" << r.count << "\n";
    ASSERT_TRUE(d.fallback_totals) << d.note;
    EXPECT_GE(d.client_fallbacks, 1u);
    EXPECT_GE(d.server_fallbacks, 1u);
    bool client_reason = false, server_reason = false;
    for (const auto& r : d.reasons) {
        client_reason = client_reason || (!r.server && r.code == kNoSmcDevice && r.count >= 1);
        server_reason = server_reason || (r.server && r.code == kPeerDeclined && r.count >= 1);
    }
    EXPECT_TRUE(server_reason) << "the server's fallback reason did not rise";
    EXPECT_TRUE(client_reason) << "the client's fallback reason did not rise";
    EXPECT_EQ(d.smcr.handshakes() + d.smcd.handshakes(), 0u) << "an SMC handshake engaged over lo";
    EXPECT_EQ(d.smcr.tx_bytes + d.smcd.tx_bytes, 0u) << "bytes went through an RMB, yet both ends fell back";

    // The report block says so on its first line.
    SmcSideReport report;
    report.connections = {*c};
    report.stats = d;
    const std::string first = smc_fallback_sentence(report);
    std::cout << first << "\n";
    EXPECT_NE(first.find("FELL BACK TO TCP"), std::string::npos) << first;
    EXPECT_NE(first.find("0x03030000 no SMC device"), std::string::npos) << first;
}
