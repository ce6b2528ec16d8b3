// parse_endpoint: "host", "host:port", "[v6]:port", bare v6.
#include <gtest/gtest.h>

#include "tcp/tcp_socket.hpp"

using namespace zc;

TEST(Endpoint, HostOnlyGetsTheDefaultPort) {
    Endpoint e = parse_endpoint("server1", 12875);
    EXPECT_EQ(e.host, "server1");
    EXPECT_EQ(e.port, 12875);
    e = parse_endpoint("10.0.0.2", 7);
    EXPECT_EQ(e.host, "10.0.0.2");
    EXPECT_EQ(e.port, 7);
}

TEST(Endpoint, HostAndPort) {
    Endpoint e = parse_endpoint("10.0.0.2:5000", 12875);
    EXPECT_EQ(e.host, "10.0.0.2");
    EXPECT_EQ(e.port, 5000);
    e = parse_endpoint("server.example.com:1", 12875);
    EXPECT_EQ(e.host, "server.example.com");
    EXPECT_EQ(e.port, 1);
    EXPECT_EQ(parse_endpoint("h:65535", 1).port, 65535);
}

TEST(Endpoint, BracketedV6) {
    Endpoint e = parse_endpoint("[::1]:5000", 12875);
    EXPECT_EQ(e.host, "::1");
    EXPECT_EQ(e.port, 5000);
    e = parse_endpoint("[fe80::1%eth0]:80", 12875);
    EXPECT_EQ(e.host, "fe80::1%eth0");
    EXPECT_EQ(e.port, 80);
    e = parse_endpoint("[2001:db8::2]", 12875);
    EXPECT_EQ(e.host, "2001:db8::2");
    EXPECT_EQ(e.port, 12875);
}

TEST(Endpoint, BareV6IsAllHost) {
    Endpoint e = parse_endpoint("::1", 12875);
    EXPECT_EQ(e.host, "::1");
    EXPECT_EQ(e.port, 12875);
    e = parse_endpoint("2001:db8::2:5000", 12875);  // ambiguous: taken as an address, not a port
    EXPECT_EQ(e.host, "2001:db8::2:5000");
    EXPECT_EQ(e.port, 12875);
}

TEST(Endpoint, BadPortsAndHosts) {
    for (const char* bad : {"h:0", "h:65536", "h:99999", "h:-1", "h:abc", "h:80x", "h:8 0", "[::1]:0", "[::1]:70000",
                            "[::1]:x", "[::1]5000", "[::1", ":5000", "", "[]:80", "[]"}) {
        EXPECT_THROW(parse_endpoint(bad, 12875), std::invalid_argument) << "'" << bad << "'";
    }
    try {
        parse_endpoint("server:70000", 1);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("70000"), std::string::npos) << e.what();
    }
}
