// The tls kinds' pieces: /proc/net/tls_stat and tcp_available_ulp read from fixtures in the
// kernel's format, the options' refusals, and OpenSSL's handshake and loops over a socketpair: the bytes
// and the pattern exact, and each bad peer a clear error (no TLS, a cut record, a record that fails its
// MAC), every wait bounded by the socket's receive timeout.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "core/unique_fd.hpp"
#include "parse_cli.hpp"
#include "protocol/frame.hpp"
#include "tcp/tcp_socket.hpp"
#include "tls/tls_kernel.hpp"
#include "tls/tls_loops.hpp"
#include "tls/tls_offload.hpp"
#include "protocol/result.hpp"
#include "tls/tls_report.hpp"
#include "tls/tls_session.hpp"

using namespace zc;

namespace {

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(ZCPERF_FIXTURES) + "/tls/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// A connected pair, each end's receive timeout short so a silent peer fails the test quickly: a socketpair,
// or a TCP connection on 127.0.0.1 for the loops that set TCP_NODELAY (rr). SIGPIPE ignored, as zcperf and
// zcserver do: OpenSSL's socket BIO writes without MSG_NOSIGNAL.
struct Pair {
    UniqueFd a, b;
    explicit Pair(bool tcp = false) {
        std::signal(SIGPIPE, SIG_IGN);
        if (tcp) {
            auto [listener, port] = listen_tcp("127.0.0.1", 0, 1);
            a = connect_tcp(Endpoint{"127.0.0.1", port}, std::chrono::seconds(2));
            b = UniqueFd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
        } else {
            int fds[2];
            if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) throw std::runtime_error("socketpair");
            a = UniqueFd(fds[0]);
            b = UniqueFd(fds[1]);
        }
        for (int fd : {a.get(), b.get()}) set_receive_timeout(fd, std::chrono::seconds(2));
    }
};

// Both handshakes, the server's on a thread.
std::pair<TlsSessionPtr, TlsSessionPtr> handshake(Pair& p, const TlsChoice& choice) {
    TlsSessionPtr server;
    std::string server_error;
    std::thread t([&] {
        try {
            server = tls_server_handshake(p.b.get(), false);
        } catch (const std::exception& e) {
            server_error = e.what();
        }
    });
    TlsSessionPtr client = tls_client_handshake(p.a.get(), choice, false);
    t.join();
    if (!server_error.empty()) throw std::runtime_error(server_error);
    return {client, server};
}

std::string client_error_against(const std::function<void(int)>& peer) {
    Pair p;
    std::thread t([&] { peer(p.b.get()); });
    std::string what;
    try {
        tls_client_handshake(p.a.get(), TlsChoice{}, false);
    } catch (const std::runtime_error& e) {
        what = e.what();
    }
    t.join();
    return what;
}

StopRule budget(uint64_t bytes, std::atomic<bool>& abort) {
    StopRule s;
    s.deadline_ns = monotonic_ns() + 30'000'000'000;
    s.byte_budget = bytes;
    s.abort = &abort;
    return s;
}

}  // namespace

TEST(TlsStat, ParsesTheKernelsFileAndTakesDeltas) {
    TlsStat before = parse_tls_stat(fixture("tls_stat_6.1_before.txt"));
    TlsStat after = parse_tls_stat(fixture("tls_stat_6.1_after.txt"));
    ASSERT_EQ(before.size(), 12u);
    EXPECT_EQ(before.at("TlsTxSw"), 3u);
    auto d = tls_stat_delta(before, after);
    EXPECT_EQ(d.at("TlsTxSw"), 2);
    EXPECT_EQ(d.at("TlsCurrRxSw"), 2);
    EXPECT_EQ(d.at("TlsDecryptError"), 1);
    EXPECT_EQ(d.at("TlsRxNoPadViolation"), 0);
    // An older kernel's file lacks the 6.0 counters: they are absent, not zero.
    TlsStat old = parse_tls_stat(fixture("tls_stat_5.15.txt"));
    EXPECT_EQ(old.size(), 10u);
    EXPECT_EQ(old.count("TlsRxNoPadViolation"), 0u);
    // Lines that are not "name number" are skipped, not misread.
    TlsStat odd = parse_tls_stat("TlsTxSw 7\ngarbage\nTlsRxSw x\nTlsA 1 2\n\n");
    EXPECT_EQ(odd.size(), 1u);
    EXPECT_EQ(odd.at("TlsTxSw"), 7u);
    EXPECT_TRUE(parse_tls_stat("").empty());
}

TEST(TlsKernel, MissingUlpNamesModprobeAndTheList) {
    std::string why = ktls_unavailable(fixture("tcp_available_ulp_mptcp_only.txt"));
    EXPECT_NE(why.find("modprobe tls"), std::string::npos) << why;
    EXPECT_NE(why.find("'mptcp'"), std::string::npos) << why;
    EXPECT_NE(why.find("-T tls"), std::string::npos) << why;
    EXPECT_EQ(ktls_unavailable(fixture("tcp_available_ulp_tls.txt")), "");
    EXPECT_NE(ktls_unavailable("").find("offers none"), std::string::npos);
}

// The kernel refuses OpenSSL's keys (setsockopt SOL_TLS: ENOENT) when it has not the AEAD and cannot load it.
TEST(TlsKernel, MissingAeadNamesTheModuleToLoad) {
    const std::string gcm_loaded =
        "name         : gcm(aes)\ndriver       : generic-gcm-aesni\nmodule       : aesni_intel\n\n"
        "name         : ghash\ndriver       : ghash-generic\n";
    EXPECT_EQ(ktls_aead_missing("ECDHE-ECDSA-AES128-GCM-SHA256", gcm_loaded), "");
    EXPECT_EQ(ktls_aead_missing("TLS_AES_256_GCM_SHA384", gcm_loaded), "");
    std::string why = ktls_aead_missing("ECDHE-ECDSA-AES128-GCM-SHA256", "name         : ghash\n");
    EXPECT_NE(why.find("no gcm(aes)"), std::string::npos) << why;
    EXPECT_NE(why.find("modprobe gcm"), std::string::npos) << why;
    why = ktls_aead_missing("TLS_CHACHA20_POLY1305_SHA256", gcm_loaded);
    EXPECT_NE(why.find("rfc7539(chacha20,poly1305)"), std::string::npos) << why;
    EXPECT_NE(why.find("modprobe chacha20poly1305"), std::string::npos) << why;
    EXPECT_EQ(ktls_aead_missing("TLS_CHACHA20_POLY1305_SHA256", "name : rfc7539(chacha20,poly1305)\n"), "");
}

namespace {

// A fixture of tests/fixtures/tls/dump_netdev_features.py: what SIOCETHTOOL's ETHTOOL_GSTRINGS
// (ETH_SS_FEATURES) and ETHTOOL_GFEATURES returned for one interface.
NetdevFeatures features_fixture(const std::string& name) {
    NetdevFeatures f;
    std::istringstream lines(fixture(name));
    std::string line, word;
    while (std::getline(lines, line)) {
        std::istringstream w(line);
        size_t index = 0;
        if (!(w >> word >> index)) continue;
        if (word == "feature") {
            f.names.resize(std::max(f.names.size(), index + 1));
            w >> f.names[index];
        } else if (word == "block") {
            std::string a, r, act, nc, av, rv, acv, ncv;
            w >> a >> av >> r >> rv >> act >> acv >> nc >> ncv;
            f.blocks.resize(std::max(f.blocks.size(), index + 1));
            f.blocks[index] = {static_cast<uint32_t>(std::stoul(av, nullptr, 16)),
                               static_cast<uint32_t>(std::stoul(rv, nullptr, 16)),
                               static_cast<uint32_t>(std::stoul(acv, nullptr, 16)),
                               static_cast<uint32_t>(std::stoul(ncv, nullptr, 16))};
        }
    }
    return f;
}

size_t feature_index(const NetdevFeatures& f, const std::string& name) {
    return static_cast<size_t>(std::find(f.names.begin(), f.names.end(), name) - f.names.begin());
}

}  // namespace

// The features as ethtool -k says them, read from fixtures of this host's lo (Linux 6.18) and the lab
// guests' virtio-net (Debian's 6.1): neither offers TLS, and the refusal says so in ethtool's words.
TEST(TlsOffload, FeaturesReadAsEthtoolSaysThem) {
    const NetdevFeatures lo = features_fixture("netdev_features_lo_6.18.txt");
    ASSERT_EQ(lo.blocks.size(), 2u);
    EXPECT_EQ(ethtool_words(feature_state(lo, "tls-hw-tx-offload")), "off [fixed]");
    EXPECT_EQ(ethtool_words(feature_state(lo, "tls-hw-rx-offload")), "off [fixed]");
    EXPECT_EQ(ethtool_words(feature_state(lo, "tx-checksum-ip-generic")), "on [fixed]");  // ethtool -k lo
    EXPECT_EQ(ethtool_words(feature_state(lo, "rx-gro-list")), "off");
    EXPECT_EQ(ethtool_words(feature_state(lo, "tls-hw-quantum")), "not known to this kernel");
    EXPECT_EQ(tls_offload_refusal("lo", lo, true, false),
              "lo: tls-hw-tx-offload off [fixed]: this NIC cannot encrypt TLS records; run without --tls-offload");
    EXPECT_EQ(tls_offload_refusal("lo", lo, false, true),
              "lo: tls-hw-rx-offload off [fixed]: this NIC cannot decrypt TLS records; run without --tls-offload");
    const NetdevFeatures virtio = features_fixture("netdev_features_virtio_eth1_6.1.txt");
    EXPECT_NE(tls_offload_refusal("eth1", virtio, true, true).find("eth1: tls-hw-tx-offload off [fixed]"),
              std::string::npos);
    EXPECT_EQ(ethtool_words(feature_state(virtio, "tx-tcp-segmentation")), "on");  // docs/lab.md's ethtool -k eth1
}

// A NIC that offers TLS (no fixture of a real one here: the lo fixture with the two bits set): taken in
// each direction only when active; "requested on" when the driver could not turn it on.
TEST(TlsOffload, AnOfferingNicIsTakenPerDirection) {
    NetdevFeatures nic = features_fixture("netdev_features_lo_6.18.txt");
    const size_t tx = feature_index(nic, "tls-hw-tx-offload"), rx = feature_index(nic, "tls-hw-rx-offload");
    ASSERT_LT(tx, nic.names.size());
    ASSERT_LT(rx, nic.names.size());
    for (size_t i : {tx, rx}) nic.blocks[i / 32].available |= 1u << (i % 32);
    nic.blocks[tx / 32].active |= 1u << (tx % 32);
    nic.blocks[tx / 32].requested |= 1u << (tx % 32);
    nic.blocks[rx / 32].requested |= 1u << (rx % 32);  // asked for, the driver said no
    EXPECT_EQ(tls_offload_refusal("mlx0", nic, true, false), "");
    EXPECT_EQ(ethtool_words(feature_state(nic, "tls-hw-rx-offload")), "off [requested on]");
    EXPECT_EQ(tls_offload_refusal("mlx0", nic, true, true),
              "mlx0: tls-hw-rx-offload off [requested on]: this NIC cannot decrypt TLS records; run without "
              "--tls-offload");
}

// The live read on this host's lo, where the ioctl works for any user; an unknown interface says why.
TEST(TlsOffload, LiveLoopbackAndAMissingInterface) {
    std::string why;
    auto lo = read_netdev_features("lo", &why);
    ASSERT_TRUE(lo) << why;
    EXPECT_TRUE(feature_state(*lo, "tx-checksum-ip-generic").known);
    EXPECT_FALSE(read_netdev_features("zcnosuch0", &why));
    EXPECT_NE(why.find("zcnosuch0: SIOCETHTOOL ETHTOOL_GSSET_INFO failed"), std::string::npos) << why;
}

TEST(TlsOptions, RefusedWithWhatToUse) {
    ClientOptions o;
    EXPECT_EQ(test::parse({"-T", "tls", "--tls-cipher", "rot13"}), 2);
    EXPECT_EQ(test::parse({"-T", "tls", "--tls-version", "1.1"}), 2);
    EXPECT_EQ(test::parse({"-T", "tcp", "--tls-cipher", "aes-256-gcm"}), 2);  // no tls row reads it
    EXPECT_EQ(test::parse({"-T", "tls", "--tls-offload"}), 2);                // user-space TLS has no NIC keys
    EXPECT_EQ(test::parse({"-T", "ktls-sendfile", "--tls-offload"}), 2);      // to the embedded server: lo
    ASSERT_EQ(test::parse({"-T", "tcp,ktls", "--tls-cipher", "chacha20-poly1305", "--tls-version", "1.2"}, o), -1);
    TlsChoice c = tls_choice(o.params.kind_options);
    EXPECT_EQ(c.cipher, "chacha20-poly1305");
    EXPECT_EQ(c.version, 12);
    EXPECT_EQ(tls_choice({}).version, 13);
    try {
        checked_tls_cipher("rot13");
        FAIL() << "rot13 taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("aes-128-gcm, aes-256-gcm, chacha20-poly1305"), std::string::npos);
    }
}

TEST(TlsSession, EachCipherAndVersionAgreedAsOffered) {
    const std::pair<TlsChoice, const char*> cases[] = {
        {{13, "aes-128-gcm"}, "TLS_AES_128_GCM_SHA256"},
        {{13, "aes-256-gcm"}, "TLS_AES_256_GCM_SHA384"},
        {{13, "chacha20-poly1305"}, "TLS_CHACHA20_POLY1305_SHA256"},
        {{12, "aes-128-gcm"}, "ECDHE-ECDSA-AES128-GCM-SHA256"},
        {{12, "chacha20-poly1305"}, "ECDHE-ECDSA-CHACHA20-POLY1305"},
    };
    for (const auto& [choice, cipher] : cases) {
        Pair p;
        auto [client, server] = handshake(p, choice);
        TlsAgreed a = tls_agreed(client.get()), b = tls_agreed(server.get());
        EXPECT_EQ(a.cipher, cipher);
        EXPECT_EQ(b.cipher, cipher);
        EXPECT_EQ(a.version, choice.version == 12 ? "TLSv1.2" : "TLSv1.3");
        EXPECT_FALSE(a.openssl_ktls_send);  // not asked for
        EXPECT_EQ(a.max_record_payload, 16384);
    }
}

TEST(TlsLoops, StreamBytesAndPatternExactThenCloseNotify) {
    Pair p;
    auto [client, server] = handshake(p, TlsChoice{});
    std::atomic<bool> abort{false};
    const uint64_t total = (5 << 20) + 12345;  // the last message short
    TlsSender tx(client.get(), p.a.get(), 1 << 20, 4096);
    TlsReceiver rx(server.get(), 1 << 20, 4096);
    StreamCounters got;
    std::thread t([&] { got = rx.run(budget(0, abort)); });
    StreamCounters sent = tx.run(budget(total, abort));
    t.join();
    EXPECT_EQ(sent.error, 0) << (sent.failed_call ? sent.failed_call : "");
    EXPECT_EQ(sent.bytes, total);
    EXPECT_EQ(got.error, 0) << (got.failed_call ? got.failed_call : "");
    EXPECT_EQ(got.bytes, total);
    EXPECT_GE(got.ops, total / 16384);  // a record per read at most
}

TEST(TlsLoops, RrRoundTripsOverSslCalls) {
    Pair p(true);
    auto [client, server] = handshake(p, TlsChoice{13, "aes-256-gcm"});
    std::atomic<bool> abort{false};
    LatencyHistogram rtt;
    TlsRrInitiator ini(client.get(), p.a.get(), 100, 64, rtt);
    TlsRrResponder resp(server.get(), p.b.get(), 100, 64);
    StreamCounters answered;
    std::thread t([&] { answered = resp.run(budget(0, abort)); });
    StopRule stop = budget(0, abort);
    stop.deadline_ns = monotonic_ns() + 200'000'000;
    StreamCounters c = ini.run(stop);
    t.join();
    EXPECT_EQ(c.error, 0) << (c.failed_call ? c.failed_call : "");
    EXPECT_EQ(answered.error, 0) << (answered.failed_call ? answered.failed_call : "");
    EXPECT_GT(c.messages, 0u);
    EXPECT_EQ(c.messages, answered.messages);
    EXPECT_EQ(c.bytes, c.messages * 100);
}

TEST(TlsBadPeer, PlainPeerClosedPeerAndSilentPeerAreClearErrors) {
    std::string plain = client_error_against([](int fd) {
        char hello[512];
        (void)::recv(fd, hello, sizeof(hello), 0);
        const char answer[] = "HTTP/1.0 400 Bad Request\r\n\r\n";  // a server that does not speak TLS
        (void)::send(fd, answer, sizeof(answer) - 1, MSG_NOSIGNAL);
        ::shutdown(fd, SHUT_RDWR);
    });
    EXPECT_NE(plain.find("TLS handshake (client) failed"), std::string::npos) << plain;
    EXPECT_NE(plain.find("wrong version number"), std::string::npos) << plain;
    std::string closed = client_error_against([](int fd) { ::shutdown(fd, SHUT_RDWR); });
    EXPECT_NE(closed.find("closed the connection"), std::string::npos) << closed;
    auto t0 = std::chrono::steady_clock::now();
    std::string silent = client_error_against([](int) { std::this_thread::sleep_for(std::chrono::seconds(3)); });
    EXPECT_NE(silent.find("no answer from the peer"), std::string::npos) << silent;
    std::cerr << "plain: " << plain << "\nclosed: " << closed << "\nsilent: " << silent << "\n";
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(TlsBadPeer, RecordCutShortOrFailingItsMacEndsTheReceiverClearly) {
    // A peer killed mid-record: a record header promising 1000 bytes, 10 of them, then the end.
    {
        Pair p;
        auto [client, server] = handshake(p, TlsChoice{});
        const unsigned char cut[] = {0x17, 0x03, 0x03, 0x03, 0xe8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        ASSERT_EQ(::send(p.a.get(), cut, sizeof(cut), MSG_NOSIGNAL), static_cast<ssize_t>(sizeof(cut)));
        ::shutdown(p.a.get(), SHUT_WR);
        std::atomic<bool> abort{false};
        StreamCounters c = TlsReceiver(server.get(), 4096, 64).run(budget(0, abort));
        EXPECT_EQ(c.error, ECONNRESET);
        ASSERT_NE(c.failed_call, nullptr);
        EXPECT_NE(std::string(c.failed_call).find("without close_notify"), std::string::npos) << c.failed_call;
    }
    // A whole record that does not decrypt: bad record MAC.
    {
        Pair p;
        auto [client, server] = handshake(p, TlsChoice{});
        unsigned char bad[5 + 64] = {0x17, 0x03, 0x03, 0x00, 64};
        for (int i = 5; i < 69; ++i) bad[i] = static_cast<unsigned char>(i * 7);
        ASSERT_EQ(::send(p.a.get(), bad, sizeof(bad), MSG_NOSIGNAL), static_cast<ssize_t>(sizeof(bad)));
        std::atomic<bool> abort{false};
        StreamCounters c = TlsReceiver(server.get(), 4096, 64).run(budget(0, abort));
        EXPECT_EQ(c.error, EBADMSG);
        ASSERT_NE(c.failed_call, nullptr);
        EXPECT_NE(std::string(c.failed_call).find("bad record MAC"), std::string::npos) << c.failed_call;
    }
}

TEST(TlsReport, BlockRoundTripsAndSaysWhatRan) {
    TlsSideReport r{.crypto = "kernel",
                    .version = "TLSv1.3",
                    .cipher = "TLS_AES_128_GCM_SHA256",
                    .record_payload = 16384,
                    .openssl_ktls_send = true,
                    .openssl_ktls_recv = false,
                    .kernel_tx = "aes-128-gcm 1.3",
                    .kernel_rx = "",
                    .rx_expect_no_pad = "on",
                    .offload = "",
                    .sessions = 2,
                    .tls_stat_present = true,
                    .tls_stat = {{"TlsTxSw", 2}, {"TlsDecryptError", 0}},
                    .note = ""};
    const KindBlockType& type = tls_block_type();
    nlohmann::json j = type.decode(to_json(r));
    TlsSideReport back = tls_side_from_json(j);
    EXPECT_EQ(back.kernel_tx, "aes-128-gcm 1.3");
    EXPECT_EQ(back.tls_stat.at("TlsTxSw"), 2);
    std::string lines;
    for (const auto& l : type.human_lines(j, SideResult{})) lines += l + "\n";
    EXPECT_NE(lines.find("TLSv1.3 TLS_AES_128_GCM_SHA256"), std::string::npos) << lines;
    EXPECT_NE(lines.find("kTLS send: kernel (aes-128-gcm 1.3)"), std::string::npos) << lines;
    EXPECT_NE(lines.find("kTLS receive: not in the kernel"), std::string::npos) << lines;
    EXPECT_NE(lines.find("TlsTxSw +2"), std::string::npos) << lines;
    EXPECT_EQ(type.csv_cells(j).size(), type.csv_columns().size());
    // The CSV's first columns are the fields of the same names.
    EXPECT_EQ(type.csv_columns(), (std::vector<std::string>{"crypto", "version", "cipher", "kernel_tx", "kernel_rx",
                                                            "decrypt_errors", "rx_no_pad_violations"}));
    EXPECT_EQ(type.csv_cells(j),
              (std::vector<std::string>{"kernel", "TLSv1.3", "TLS_AES_128_GCM_SHA256", "1", "0", "0", "0"}));
    nlohmann::json bad = j;
    bad["tls_stat"]["TlsTxSw"] = "many";
    EXPECT_THROW(type.decode(bad), ProtocolError);
}

// An older peer's block without the newer fields keeps their defaults; the sides are compared only when both
// have the block, and then a different session or a decryption error is the test's warning.
TEST(TlsReport, OlderPeersAndTheTwoSides) {
    const KindBlockType& type = tls_block_type();
    TlsSideReport old = tls_side_from_json(type.decode(nlohmann::json{{"crypto", "openssl"}, {"version", "TLSv1.2"}}));
    EXPECT_EQ(old.crypto, "openssl");
    EXPECT_EQ(old.record_payload, 0u);
    EXPECT_FALSE(old.tls_stat_present);
    EXPECT_TRUE(old.tls_stat.empty());
    TlsSideReport tx;
    tx.crypto = TlsSideReport::kKernelCrypto;
    tx.version = "TLSv1.3";
    tx.cipher = "TLS_AES_128_GCM_SHA256";
    TlsSideReport rx = tx;
    ASSERT_NE(type.check_sides, nullptr);
    const nlohmann::json a = to_json(tx);
    EXPECT_TRUE(type.check_sides(&a, nullptr).empty());
    EXPECT_TRUE(type.check_sides(nullptr, &a).empty());
    EXPECT_TRUE(type.check_sides(&a, &a).empty());
    rx.cipher = "TLS_AES_256_GCM_SHA384";
    rx.tls_stat = {{"TlsDecryptError", 3}};
    const nlohmann::json b = to_json(rx);
    auto notes = type.check_sides(&a, &b);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_NE(notes[0].find("different sessions"), std::string::npos) << notes[0];
    EXPECT_NE(notes[1].find("3 record(s) that failed to decrypt"), std::string::npos) << notes[1];
    for (const auto& line : type.human_lines(a, SideResult{}))
        EXPECT_EQ(line.find("OpenSSL)"), std::string::npos) << line;  // the kernel's crypto, said so
}
