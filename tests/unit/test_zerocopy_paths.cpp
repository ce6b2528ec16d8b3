// Zero-copy paths refuse clearly when the kernel refuses: the error names the cause, nothing falls
// back silently to copying.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp/tcp_ops.hpp"
#include "core/unique_fd.hpp"
#include "kind/spec_rules.hpp"
#include "../half_spec.hpp"

using namespace zc;
using zc::test::half_spec;

TEST(ZeroCopyPaths, SoZerocopyRefusedNamesTheCause) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);  // AF_UNIX has no SO_ZEROCOPY
    UniqueFd a(sv[0]), b(sv[1]);
    StreamLoop path;
    try {
        make_tcp_send(path, half_spec(transport_named("tcp-msgzc"), 65536), a.get());
        FAIL() << "SO_ZEROCOPY on a UNIX socket was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("refused SO_ZEROCOPY"), std::string::npos) << e.what();
    }
}

TEST(ZeroCopyPaths, ZerocopyReceiveOnANonTcpSocketNamesTheCause) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);  // cannot be mmap'd as a TCP receive window
    UniqueFd a(sv[0]), b(sv[1]);
    StreamLoop path;
    try {
        make_tcp_recv(path, half_spec(transport_named("tcp"), 65536, {}, RxMode::zerocopy), a.get());
        FAIL() << "mmap of a UNIX socket was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("TCP_ZEROCOPY_RECEIVE"), std::string::npos) << e.what();
    }
}

TEST(ZeroCopyPaths, BufferMemoryTheServerChecksAgainstItsLimit) {
    // A copy sender holds one message; a zero-copy sender a ring of them (about 8 MiB, 2..64 slots).
    EXPECT_EQ(buffer_bytes(half_spec(transport_named("tcp"), 1 << 20), Role::send), 1u << 20);
    EXPECT_EQ(buffer_bytes(half_spec(transport_named("tcp-msgzc"), 1 << 20), Role::send), 8u << 20);
    EXPECT_EQ(buffer_bytes(half_spec(transport_named("tcp-uringzc"), 64 << 20), Role::send), 128u << 20);
    EXPECT_EQ(buffer_bytes(half_spec(transport_named("tcp"), 1 << 20, {}, RxMode::trunc), Role::recv), 0u);
}
