// The data connection (core/data_connection.hpp): a plain socket, or a kind's own connection held as a
// KindConnection, which core destroys once, interrupts and reads the TCP socket of without knowing the
// kind's type, and which gives the type back only to a caller that names it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <utility>

#include "core/data_connection.hpp"
#include "tcp/tcp_flows.hpp"

using namespace zc;

namespace {

// A kind's connection that counts what is done to it.
struct Counted {
    int* destroyed;
    int* interrupted;
    int fd = 7;
    Counted(int* d, int* i) : destroyed(d), interrupted(i) {}
    Counted(const Counted&) = delete;
    Counted& operator=(const Counted&) = delete;
    ~Counted() { ++*destroyed; }
    void interrupt() { ++*interrupted; }
    int tcp_fd() const { return fd; }
};

// A kind's connection with neither interrupt() nor tcp_fd() (as the verbs kind's).
struct Bare {
    int value = 42;
};

struct SocketPair {
    UniqueFd a, b;
    SocketPair() {
        int sv[2];
        EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        a.reset(sv[0]);
        b.reset(sv[1]);
    }
};

// The peer's end reads end-of-stream at once: `fd` was shut down.
bool peer_sees_shutdown(int peer) {
    char byte = 0;
    return ::recv(peer, &byte, 1, MSG_DONTWAIT) == 0;
}

TEST(KindConnection, DestroysItsConnectionOnceAcrossMoves) {
    int destroyed = 0, interrupted = 0;
    {
        DataConnection first = make_kind_connection<Counted>(&destroyed, &interrupted);
        DataConnection second = std::move(first);
        KindConnection third = std::move(std::get<KindConnection>(second));
        EXPECT_EQ(destroyed, 0);
        EXPECT_FALSE(std::get<KindConnection>(second));  // moved from: empty, safe to destroy
        EXPECT_EQ(std::get<KindConnection>(second).tcp_fd(), -1);
        ASSERT_TRUE(third);
        EXPECT_NE(third.get_if<Counted>(), nullptr);
    }
    EXPECT_EQ(destroyed, 1);
}

TEST(KindConnection, MoveAssignmentDestroysWhatItReplaces) {
    int destroyed_a = 0, destroyed_b = 0, interrupted = 0;
    KindConnection a = make_kind_connection<Counted>(&destroyed_a, &interrupted);
    KindConnection b = make_kind_connection<Counted>(&destroyed_b, &interrupted);
    a = std::move(b);
    EXPECT_EQ(destroyed_a, 1);
    EXPECT_EQ(destroyed_b, 0);
    a.reset();
    EXPECT_EQ(destroyed_b, 1);
    a.reset();  // empty: nothing more
    EXPECT_EQ(destroyed_a + destroyed_b, 2);
}

TEST(KindConnection, InterruptAndTcpFdReachTheKind) {
    int destroyed = 0, interrupted = 0;
    DataConnection conn = make_kind_connection<Counted>(&destroyed, &interrupted);
    EXPECT_EQ(tcp_fd(conn), 7);
    interrupt(conn);
    EXPECT_EQ(interrupted, 1);
    kind_connection_if<Counted>(conn)->fd = 9;  // the same object, not a copy
    EXPECT_EQ(tcp_fd(conn), 9);
}

TEST(KindConnection, KindWithoutTheCallsHasNoSocketAndIgnoresInterrupt) {
    DataConnection conn = make_kind_connection<Bare>();
    EXPECT_EQ(tcp_fd(conn), -1);
    interrupt(conn);
    ASSERT_NE(kind_connection_if<Bare>(conn), nullptr);
    EXPECT_EQ(kind_connection_if<Bare>(conn)->value, 42);
}

TEST(KindConnection, AnotherTypeOrAPlainSocketGivesNullptr) {
    int destroyed = 0, interrupted = 0;
    DataConnection kind = make_kind_connection<Counted>(&destroyed, &interrupted);
    EXPECT_EQ(kind_connection_if<Bare>(kind), nullptr);
    EXPECT_EQ(kind_connection_if<TcpFlowSockets>(kind), nullptr);
    const DataConnection& read_only = kind;
    EXPECT_NE(kind_connection_if<Counted>(read_only), nullptr);
    EXPECT_EQ(kind_connection_if<Bare>(read_only), nullptr);

    SocketPair p;
    const int fd = p.a.get();
    DataConnection plain{std::move(p.a)};
    EXPECT_EQ(kind_connection_if<Counted>(plain), nullptr);
    EXPECT_EQ(tcp_fd(plain), fd);
}

TEST(DataConnection, InterruptShutsAPlainSocketDown) {
    SocketPair p;
    DataConnection conn{std::move(p.a)};
    EXPECT_FALSE(peer_sees_shutdown(p.b.get()));  // nothing yet: EAGAIN
    interrupt(conn);
    EXPECT_TRUE(peer_sees_shutdown(p.b.get()));
}

// --flows: the tcp kind's own connection, the first flow's socket for the read-backs, every flow shut down.
TEST(DataConnection, FlowSetGivesItsFirstSocketAndShutsEveryFlowDown) {
    SocketPair one, two;
    TcpFlowSockets set;
    const int first = one.a.get();
    set.fds.push_back(std::move(one.a));
    set.fds.push_back(std::move(two.a));
    DataConnection conn = make_kind_connection<TcpFlowSockets>(std::move(set));
    EXPECT_EQ(tcp_fd(conn), first);
    interrupt(conn);
    EXPECT_TRUE(peer_sees_shutdown(one.b.get()));
    EXPECT_TRUE(peer_sees_shutdown(two.b.get()));
}

}  // namespace
