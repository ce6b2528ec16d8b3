// --rx's receive modes as rows of their kind: the help and the choices are the rows',
// each row's mode is accepted over every transport of its kind and refused elsewhere with a message that
// names the modes the transport takes and the transports that take the one asked for.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kind/spec_rules.hpp"
#include "kind/transport_ops.hpp"

using namespace zc;

TEST(RxModeRows, HelpAndChoicesAreTheKindsRows) {
    std::string help = rx_mode_help();
    // tls and ktls run tcp's receivers: one list of modes, named once for the three kinds
    EXPECT_NE(help.find("tcp, tls, ktls: copy (recv), zerocopy (TCP_ZEROCOPY_RECEIVE), splice"), std::string::npos)
        << help;
    EXPECT_EQ(help.find("zerocopy", help.find("zerocopy") + 1), std::string::npos) << help;
    EXPECT_NE(help.find("udp: copy (a datagram per recvmsg), mmsg (recvmmsg, 64 per call), gro"), std::string::npos)
        << help;
    EXPECT_EQ(rx_mode_choices(), (std::vector<std::string>{"copy", "zerocopy", "splice", "trunc", "mmsg", "gro"}));
    for (const auto& t : transport_table()) {
        if (!t.built) continue;
        for (const RxModeRow& r : transport_ops(t.id).rx_modes)
            EXPECT_NE(help.find(std::string(rx_mode_name(r.mode)) + " (" + r.how + ")"), std::string::npos) << t.name;
    }
}

TEST(RxModeRows, EachTransportTakesItsKindsModesAndNamesTheRowsThatTakeAnother) {
    for (const auto& t : transport_table()) {
        if (!t.built || !(t.tests & bit(Workload::stream))) continue;
        for (const std::string& name : rx_mode_choices()) {
            TestSpec s;
            s.transport = t.id;
            s.test = Workload::stream;
            s.message_size = 1400;
            s.rx = rx_mode_from_name(name);
            std::string why = spec_problem(s);
            if (rx_mode_row(t, s.rx)) {
                EXPECT_EQ(why.find("--rx " + name + " is for"), std::string::npos)
                    << t.name << " " << name << ": " << why;
                continue;
            }
            EXPECT_NE(why.find(std::string(t.name) + " receives with --rx copy"), std::string::npos) << why;
            // Every transport named takes it, and every one that takes it is named.
            for (const auto& other : transport_table()) {
                if (!other.built) continue;
                bool named = why.find(" " + std::string(other.name) + ",") != std::string::npos ||
                             why.ends_with(" " + std::string(other.name));
                EXPECT_EQ(named, rx_mode_row(other, s.rx) != nullptr) << other.name << " in: " << why;
            }
        }
    }
    const TransportInfo& tcp = transport_info(transport_named("tcp"));
    EXPECT_FALSE(rx_mode_row(tcp, RxMode::trunc)->lands_in_buffer);
    EXPECT_TRUE(rx_mode_row(tcp, RxMode::copy)->lands_in_buffer);
    EXPECT_EQ(rx_mode_row(transport_info(transport_named("udp")), RxMode::zerocopy), nullptr);
}
