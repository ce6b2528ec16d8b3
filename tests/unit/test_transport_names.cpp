// Transport and receive-mode names: what the CLI and the wire use.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "protocol/run_spec.hpp"
#include "run/build_info.hpp"
#include "core/transport_registry.hpp"
#include "rdma/rdma_options.hpp"
#include "kind/transport_ops.hpp"
#include "paths/stream_path.hpp"

using namespace zc;

TEST(TransportNames, RoundTripEveryBuiltInTransport) {
    const auto& table = transport_table();
    ASSERT_GE(table.size(), 4u);
    EXPECT_EQ(table.front().id, transport_named("tcp"));  // the default, and the usual baseline
    size_t built = 0;
    for (const auto& t : table) {
        EXPECT_STREQ(transport_name(t.id), t.name);
        EXPECT_EQ(transport_built(t.id), t.built);
        EXPECT_GT(std::string(t.summary).size(), 10u);
        if (!t.built) {  // -DZCPERF_WITH_RDMA=OFF: known, and refused as not in this build
            EXPECT_THROW(transport_from_name(t.name), std::invalid_argument) << t.name;
            continue;
        }
        ++built;
        EXPECT_EQ(transport_from_name(t.name), t.id);
    }
    EXPECT_STREQ(transport_name(transport_named("tcp-sendfile")), "tcp-sendfile");
    EXPECT_STREQ(transport_name(transport_named("tcp-msgzc")), "tcp-msgzc");
    EXPECT_STREQ(transport_name(transport_named("tcp-uringzc")), "tcp-uringzc");
    auto names = available_transports();
    EXPECT_EQ(names.size(), built);
    EXPECT_EQ(built == table.size(), ZCPERF_WITH_RDMA == 1);  // every transport, unless RDMA was left out
    EXPECT_EQ(names.front(), "tcp");
}

// Help texts' examples name rows of the table: the reference copy path, its family's zero-copy and file senders.
TEST(TransportNames, ExampleRowsAreTheFamilysCopyZeroCopyAndFileSenders) {
    const ExampleRows& r = example_rows();
    EXPECT_STREQ(r.copy, "tcp");
    EXPECT_STREQ(r.zerocopy, "tcp-msgzc");
    EXPECT_STREQ(r.file, "tcp-sendfile");
    EXPECT_EQ(transport_named(r.copy), Transport{});
    const TransportInfo& zc = transport_info(transport_named(r.zerocopy));
    const TransportInfo& file = transport_info(transport_named(r.file));
    EXPECT_EQ(zc.send_buffer, SendBuffer::zc_ring);
    EXPECT_EQ(file.send_buffer, SendBuffer::file);
    EXPECT_STREQ(zc.copy_path, r.copy);
    EXPECT_STREQ(file.copy_path, r.copy);
}

TEST(TransportNames, UnknownNameListsTheBuiltInOnes) {
    for (const char* bad : {"", "sctp", "TCP", "tcp ", "tcp-zc", "rdma", "udp-zc"}) {
        EXPECT_THROW(transport_from_name(bad), std::invalid_argument) << "'" << bad << "'";
    }
    try {
        transport_from_name("sctp");
        FAIL();
    } catch (const std::invalid_argument& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("'sctp'"), std::string::npos) << what;
        EXPECT_NE(what.find("udp, udp-gso, udp-msgzc"), std::string::npos) << what;
        EXPECT_NE(what.find("tcp, tcp-sendfile, tcp-msgzc, tcp-uringzc"), std::string::npos) << what;
    }
}

TEST(RxModeNames, RoundTrip) {
    const std::pair<RxMode, const char*> all[] = {{RxMode::copy, "copy"},     {RxMode::zerocopy, "zerocopy"},
                                                  {RxMode::splice, "splice"}, {RxMode::trunc, "trunc"},
                                                  {RxMode::mmsg, "mmsg"},     {RxMode::gro, "gro"}};
    for (const auto& [m, name] : all) {
        EXPECT_STREQ(rx_mode_name(m), name);
        EXPECT_EQ(rx_mode_from_name(name), m);
    }
    for (const char* bad : {"", "Copy", "zero-copy", "mmap", "copy,"}) {
        EXPECT_THROW(rx_mode_from_name(bad), std::invalid_argument) << "'" << bad << "'";
    }
}

TEST(TestNames, RoundTripAndRoles) {
    EXPECT_STREQ(workload_name(Workload::stream), "stream");
    EXPECT_STREQ(workload_name(Workload::maerts), "maerts");
    EXPECT_EQ(workload_from_name("stream"), Workload::stream);
    EXPECT_EQ(workload_from_name("maerts"), Workload::maerts);
    EXPECT_EQ(workload_from_name(workload_name(Workload::rr)), Workload::rr);
    EXPECT_EQ(workload_from_name(workload_name(Workload::msgrate)), Workload::msgrate);
    EXPECT_EQ(client_role(Workload::rr), Role::send);  // the client asks, the server answers
    EXPECT_EQ(server_role(Workload::rr), Role::recv);
    EXPECT_EQ(server_role(Workload::msgrate), Role::recv);
    for (Workload t : {Workload::crr, Workload::cc}) {  // a connection per transaction
        EXPECT_EQ(workload_from_name(workload_name(t)), t);
        EXPECT_EQ(client_role(t), Role::send);
        EXPECT_TRUE(is_connection_test(t) && is_transaction_test(t) && is_message_test(t));
    }
    EXPECT_THROW(workload_from_name("tcp_crr"), std::invalid_argument);
    EXPECT_THROW(workload_from_name("STREAM"), std::invalid_argument);
    EXPECT_STREQ(role_name(Role::send), "send");
    EXPECT_STREQ(role_name(Role::recv), "recv");
}

// --version lists every transport this build has, and those it lacks, so CI can tell a build that
// lost some (rdma-core missing at configure time) from a complete one.
TEST(TransportNames, VersionTextListsTheBuild) {
    std::string v = version_text("zcperf");
    EXPECT_EQ(v.rfind("zcperf " ZCPERF_VERSION "\ntransports: tcp tcp-sendfile tcp-msgzc tcp-uringzc", 0), 0u) << v;
    auto words_after = [&](const std::string& head) {
        std::set<std::string> words;
        size_t at = v.find("\n" + head);
        if (at == std::string::npos) return words;
        std::istringstream line(v.substr(at + head.size() + 1, v.find('\n', at + 1) - at - head.size() - 1));
        for (std::string w; line >> w;)
            if (w.front() != '(')
                words.insert(w);
            else
                break;
        return words;
    };
    std::set<std::string> built = words_after("transports:"), missing = words_after("not built:");
    for (const auto& t : transport_table())
        EXPECT_EQ((t.built ? built : missing).count(t.name), 1u) << t.name << "\n" << v;
    EXPECT_EQ(built.size() + missing.size(), transport_table().size()) << v;
    EXPECT_NE(v.find("\ngpu buffers: "), std::string::npos) << v;
    EXPECT_NE(v.find("\nlicence: Apache-2.0 ("), std::string::npos) << v;
}

// -T's help is the rows': every transport this build has, with its summary, and the others named as missing.
TEST(TransportNames, HelpListsEveryRow) {
    std::string help = transport_help();
    for (const auto& t : transport_table()) {
        if (t.built) {
            EXPECT_NE(help.find("\n  " + std::string(t.name) + " "), std::string::npos) << t.name << help;
            EXPECT_NE(help.find(t.summary), std::string::npos) << t.name << help;
        } else {
            EXPECT_NE(help.find(t.name), std::string::npos) << t.name << help;
            EXPECT_NE(help.find("not in this build"), std::string::npos) << help;
        }
    }
}

// Every row this build has finds its kind's operations table, and every member of it is set: the set-up
// code calls through the table without looking. A row that is not built finds none and says what is missing.
TEST(TransportOps, EveryBuiltRowHasACompleteTable) {
    for (const auto& t : transport_table()) {
        if (!t.built) {
            try {
                transport_ops(t.id);
                ADD_FAILURE() << t.name << " is not built but has an operations table";
            } catch (const std::runtime_error& e) {
                EXPECT_NE(std::string(e.what()).find("rdma-core"), std::string::npos) << e.what();
            }
            continue;
        }
        const TransportOps& ops = transport_ops(t.id);
        // What a kind must fill in (docs/structure.md's "Add a kind"), and make_exchange where a row runs a message
        // test (the read-backs have defaults).
        EXPECT_TRUE(ops.listen && ops.connect && ops.make_send && ops.make_recv && ops.buffer_bytes) << t.name;
        if (t.tests & (bit(Workload::rr) | bit(Workload::msgrate) | kConnectionTests)) {
            EXPECT_NE(ops.make_exchange, nullptr) << t.name;
        }
    }
    // One table per kind: rows of one kind share it, rows of two kinds do not.
    EXPECT_EQ(&transport_ops(transport_named("tcp")), &transport_ops(transport_named("tcp-msgzc")));
    EXPECT_EQ(&transport_ops(transport_named("udp")), &transport_ops(transport_named("udp-msgzc")));
    EXPECT_NE(&transport_ops(transport_named("udp")), &transport_ops(transport_named("tcp")));
    if (transport_built(transport_named("rdma-write"))) {
        EXPECT_EQ(&transport_ops(transport_named("rdma-write")), &transport_ops(transport_named("rdma-read")));
        EXPECT_NE(&transport_ops(transport_named("tcp")), &transport_ops(transport_named("rdma-write")));
        EXPECT_NE(&transport_ops(transport_named("rsocket")), &transport_ops(transport_named("rdma-write")));
    }
}

// What ran, read back through the table: a TCP sender is named by its transport, a TCP receiver by its
// --rx mode; a transport choosing its own receiver is named by the transport on both sides.
TEST(TransportOps, PathNamesFollowTheRow) {
    HalfSpec h;
    h.transport = transport_named("tcp-msgzc");
    h.rx = RxMode::zerocopy;
    EXPECT_EQ(path_name(h, Role::send), "tcp-msgzc");
    EXPECT_EQ(path_name(h, Role::recv), "rx-zerocopy");
    if (transport_built(transport_named("rdma-write"))) {
        h.transport = transport_named("rdma-write");
        EXPECT_EQ(transport_ops(h.transport).path_name, nullptr);  // the default: the row's name
        EXPECT_EQ(path_name(h, Role::recv), "rdma-write");
    }
}

// The rows of the rsocket and verbs kinds differ in one field, how their data reaches the receiver, and
// the loops read it from there (rdma/): every such row names it, by the verb in its name; no other row does.
TEST(TransportRows, EveryRdmaRowNamesItsOperation) {
    const std::pair<Transport, RdmaOp> expected[] = {{transport_named("rsocket"), RdmaOp::send},
                                                     {transport_named("rsocket-iomap"), RdmaOp::write},
                                                     {transport_named("rdma-write"), RdmaOp::write},
                                                     {transport_named("rdma-send"), RdmaOp::send},
                                                     {transport_named("rdma-read"), RdmaOp::read}};
    for (const auto& [t, op] : expected) EXPECT_EQ(rdma_op_of(transport_info(t)), op) << transport_name(t);
    size_t rdma_rows = 0;
    for (const auto& row : transport_table()) {
        if (!rdma_row(row)) continue;
        ++rdma_rows;
        EXPECT_NO_THROW(rdma_op_of(row)) << row.name;
    }
    EXPECT_EQ(rdma_rows, std::size(expected));
}
