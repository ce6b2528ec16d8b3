// Transport and receive-mode names: what the CLI and the wire use.
#include <gtest/gtest.h>

#include "protocol/test_spec.hpp"
#include "transport/transport_registry.hpp"

using namespace zc;

TEST(TransportNames, RoundTripEveryBuiltInTransport) {
    const auto& table = transport_table();
    ASSERT_GE(table.size(), 4u);
    EXPECT_EQ(table.front().id, Transport::tcp);  // the default, and the usual baseline
    for (const auto& t : table) {
        EXPECT_STREQ(transport_name(t.id), t.name);
        EXPECT_EQ(transport_from_name(t.name), t.id);
        EXPECT_GT(std::string(t.summary).size(), 10u);
    }
    EXPECT_STREQ(transport_name(Transport::tcp_sendfile), "tcp-sendfile");
    EXPECT_STREQ(transport_name(Transport::tcp_msgzc), "tcp-msgzc");
    EXPECT_STREQ(transport_name(Transport::tcp_uringzc), "tcp-uringzc");
    auto names = available_transports();
    EXPECT_EQ(names.size(), table.size());
    EXPECT_EQ(names.front(), "tcp");
}

TEST(TransportNames, UnknownNameListsTheBuiltInOnes) {
    for (const char* bad : {"", "udp", "TCP", "tcp ", "tcp-zc", "rdma"}) {
        EXPECT_THROW(transport_from_name(bad), std::invalid_argument) << "'" << bad << "'";
    }
    try {
        transport_from_name("udp");
        FAIL();
    } catch (const std::invalid_argument& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("'udp'"), std::string::npos) << what;
        EXPECT_NE(what.find("tcp, tcp-sendfile, tcp-msgzc, tcp-uringzc"), std::string::npos) << what;
    }
}

TEST(RxModeNames, RoundTrip) {
    const std::pair<RxMode, const char*> all[] = {
        {RxMode::copy, "copy"}, {RxMode::zerocopy, "zerocopy"}, {RxMode::splice, "splice"}, {RxMode::trunc, "trunc"}};
    for (const auto& [m, name] : all) {
        EXPECT_STREQ(rx_mode_name(m), name);
        EXPECT_EQ(rx_mode_from_name(name), m);
    }
    for (const char* bad : {"", "Copy", "zero-copy", "mmap", "copy,"}) {
        EXPECT_THROW(rx_mode_from_name(bad), std::invalid_argument) << "'" << bad << "'";
    }
}

TEST(TestNames, RoundTripAndRoles) {
    EXPECT_STREQ(test_name(TestKind::stream), "stream");
    EXPECT_STREQ(test_name(TestKind::maerts), "maerts");
    EXPECT_EQ(test_from_name("stream"), TestKind::stream);
    EXPECT_EQ(test_from_name("maerts"), TestKind::maerts);
    EXPECT_EQ(test_from_name(test_name(TestKind::rr)), TestKind::rr);
    EXPECT_EQ(test_from_name(test_name(TestKind::msgrate)), TestKind::msgrate);
    EXPECT_EQ(client_role(TestKind::rr), Role::send);  // the client asks, the server answers
    EXPECT_EQ(server_role(TestKind::rr), Role::recv);
    EXPECT_EQ(server_role(TestKind::msgrate), Role::recv);
    EXPECT_THROW(test_from_name("crr"), std::invalid_argument);
    EXPECT_THROW(test_from_name("STREAM"), std::invalid_argument);
    EXPECT_STREQ(role_name(Role::send), "send");
    EXPECT_STREQ(role_name(Role::recv), "recv");
}
