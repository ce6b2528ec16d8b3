// TLS end to end between real zcperf and zcserver processes over loopback: -T tls runs
// stream, maerts and rr with the cipher and version the client asked for named on both sides, the bytes
// exact; -T ktls where the kernel lacks the TLS ULP (this host) is refused with the reason; a killed
// peer ends the other side clearly. ktls and ktls-sendfile run in the RDMA guest (label rdma: its
// Debian 6.1 kernel has tls.ko) and in the lab (label lab), where the tests below load the module.
#include <gtest/gtest.h>
#include <signal.h>

#include <functional>
#include <iostream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "lab.hpp"
#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

bool kernel_has_tls_ulp() {
    auto o = run({"cat", "/proc/sys/net/ipv4/tcp_available_ulp"}, 5s);
    return o.out.find("tls") != std::string::npos;
}

const json& sender(const json& r) { return r["local"]["role"] == "send" ? r["local"] : r["remote"]; }
const json& receiver(const json& r) { return r["local"]["role"] == "send" ? r["remote"] : r["local"]; }

// Both sides ran the session asked for, in the crypto place the transport says.
void expect_sessions(const json& r, const std::string& version, const std::string& cipher, const std::string& crypto) {
    for (const json* side : {&r["local"], &r["remote"]}) {
        ASSERT_TRUE(side->contains("tls")) << side->dump();
        const json& b = (*side)["tls"];
        EXPECT_EQ(b["version"], version) << b.dump();
        EXPECT_EQ(b["cipher"], cipher) << b.dump();
        EXPECT_EQ(b["crypto"], crypto) << b.dump();
        EXPECT_EQ(b["record_payload"], 16384) << b.dump();
    }
}

}  // namespace

TEST(TlsE2e, StreamMaertsAndRrOverLoopbackNameTheirCipher) {
    LocalServer server;
    json j = zcperf_report({"-H", server.address(), "-T", "tls", "-t", "stream,maerts", "-P", "2", "-n", "48M"});
    ASSERT_EQ(j["results"].size(), 2u) << j.dump();
    for (const auto& r : j["results"]) {
        SCOPED_TRACE(r["test"].get<std::string>());
        EXPECT_EQ(r["bytes"].get<uint64_t>(), 48ull << 20);
        expect_sessions(r, "TLSv1.3", "TLS_AES_128_GCM_SHA256", "openssl");
        EXPECT_EQ(sender(r)["path"], "tls");
        EXPECT_EQ(receiver(r)["path"], "tls SSL_read");
    }
    json rr = zcperf_report({"-H", server.address(), "-T", "tls", "-t", "rr", "-m", "64", "-l", "1", "--tls-version",
                             "1.2", "--tls-cipher", "chacha20-poly1305"});
    ASSERT_EQ(rr["results"].size(), 1u) << rr.dump();
    const json& r = rr["results"][0];
    expect_sessions(r, "TLSv1.2", "ECDHE-ECDSA-CHACHA20-POLY1305", "openssl");
    EXPECT_GT(r["rr"]["transactions"].get<uint64_t>(), 0u) << r.dump();
}

TEST(TlsE2e, PacedStreamKeepsItsRate) {
    LocalServer server;
    json j = zcperf_report(
        {"-H", server.address(), "-T", "tls", "-m", "64K", "-l", "2", "-b", "200M", "--tls-cipher", "aes-256-gcm"});
    ASSERT_EQ(j["results"].size(), 1u) << j.dump();
    const json& r = j["results"][0];
    expect_sessions(r, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "openssl");
    // Paced at 200 Mb/s for 2 s: 50 MB, give or take a message and the shared machine's slowness.
    double gbps = static_cast<double>(r["bytes"].get<uint64_t>()) * 8 / 2e9;
    EXPECT_LT(gbps, 0.22) << r.dump();
    EXPECT_GT(gbps, 0.05) << r.dump();
}

TEST(TlsE2e, KtlsWithoutTheUlpIsRefusedWithTheReason) {
    if (kernel_has_tls_ulp()) GTEST_SKIP() << "this kernel has the TLS ULP: the rdma and lab labels run ktls";
    LocalServer server;
    for (const char* t : {"ktls", "ktls-sendfile"}) {
        Outcome o = run_zcperf({"-H", server.address(), "-T", t, "-n", "4M"}, 30s);
        EXPECT_EQ(o.exit_code, 1) << t << context(o);
        EXPECT_NE(o.err.find("modprobe tls"), std::string::npos) << t << context(o);
        EXPECT_NE(o.err.find("tcp_available_ulp"), std::string::npos) << t << context(o);
    }
    // The embedded server refuses the same way (its listener is the one that asks).
    Outcome o = run_zcperf({"-T", "ktls", "-n", "4M"}, 30s);
    EXPECT_EQ(o.exit_code, 1) << context(o);
    EXPECT_NE(o.err.find("modprobe tls"), std::string::npos) << context(o);
}

TEST(TlsE2e, UnknownCipherIsRefusedBeforeAnything) {
    Outcome o = run_zcperf({"-T", "tls", "--tls-cipher", "rc4"}, 10s);
    EXPECT_EQ(o.exit_code, 2) << context(o);
    EXPECT_NE(o.err.find("aes-128-gcm, aes-256-gcm, chacha20-poly1305"), std::string::npos) << context(o);
    Outcome p = run_zcperf({"-T", "tcp", "--tls-version", "1.2"}, 10s);
    EXPECT_EQ(p.exit_code, 2) << context(p);
    EXPECT_NE(p.err.find("--tls-version is for -T tls, ktls, ktls-sendfile"), std::string::npos) << context(p);
}

// --tls-offload where no NIC offers it (loopback): refused before any connection, in ethtool's words,
// per direction; with user-space TLS it is refused as an option that transport does not read.
TEST(TlsE2e, TlsOffloadRefusedOnLoopbackInEthtoolsWords) {
    const std::string no_tx =
        "lo: tls-hw-tx-offload off [fixed]: this NIC cannot encrypt TLS records; run without --tls-offload";
    for (const char* t : {"ktls", "ktls-sendfile"}) {
        Outcome o = run_zcperf({"-T", t, "--tls-offload", "-n", "4M"}, 30s);
        EXPECT_EQ(o.exit_code, 2) << t << context(o);
        EXPECT_NE(o.err.find(no_tx), std::string::npos) << t << context(o);
    }
    // Nothing listens on port 1: the refusal comes before any connection is tried.
    Outcome m = run_zcperf({"-H", "127.0.0.1:1", "-T", "ktls", "-t", "maerts", "--tls-offload"}, 30s);
    EXPECT_EQ(m.exit_code, 2) << context(m);
    EXPECT_NE(m.err.find("lo: tls-hw-rx-offload off [fixed]: this NIC cannot decrypt TLS records"), std::string::npos)
        << context(m);
    Outcome u = run_zcperf({"-T", "tls", "--tls-offload"}, 30s);
    EXPECT_EQ(u.exit_code, 2) << context(u);
    EXPECT_NE(u.err.find("--tls-offload is for -T ktls, ktls-sendfile"), std::string::npos) << context(u);
}

// A peer killed mid-record: the client's SSL_read or SSL_write ends with an error, within seconds.
TEST(TlsE2e, ServerKilledMidStreamEndsTheClientClearly) {
    for (const char* test : {"stream", "maerts"}) {
        LocalServer server;
        Process client({zcperf_bin(), "-H", server.address(), "-T", "tls", "-t", test, "-m", "64K", "-l", "30"});
        std::this_thread::sleep_for(3s);
        server.process().signal(SIGKILL);
        Outcome o = client.wait(40s);
        EXPECT_FALSE(o.timed_out) << test;
        EXPECT_EQ(o.exit_code, 1) << test << context(o);
        EXPECT_LT(o.seconds, 25.0) << test << ": the client noticed late";
        EXPECT_FALSE(o.err.empty()) << test;
    }
}

// ---- Where the kernel has tls.ko: the RDMA guest (label rdma, Ktls.*) and the lab (label lab, Lab.*). ----

namespace {

// Loads tls.ko when the kernel lacks the ULP, and unloads it at the end if this test loaded it (a module
// in use by a socket still closing may refuse; the test then says it stays).
class TlsModule {
public:
    explicit TlsModule(std::function<Outcome(const std::string&)> sh) : sh_(std::move(sh)) {
        if (sh_("grep -qw tls /proc/sys/net/ipv4/tcp_available_ulp").exit_code == 0) return;
        Outcome o = sh_("modprobe tls && grep -qw tls /proc/sys/net/ipv4/tcp_available_ulp");
        loaded_ = o.exit_code == 0;
        why_ = loaded_ ? "" : "modprobe tls failed: " + o.err;
    }
    ~TlsModule() {
        if (loaded_ && sh_("sleep 1; modprobe -r tls").exit_code != 0)
            std::cerr << "tls.ko stays loaded (in use): modprobe -r tls when its sockets are gone\n";
    }
    const std::string& why_not() const { return why_; }

private:
    std::function<Outcome(const std::string&)> sh_;
    bool loaded_ = false;
    std::string why_;
};

Outcome local_shell(const std::string& cmd) { return run({"sh", "-c", cmd}, 30s); }

// A zcserver on 127.0.0.1, given the time an emulated guest takes to start one (LocalServer waits 5 s).
class GuestServer {
public:
    GuestServer()
        : port_(free_port()), proc_({zcserver_bin(), "--bind", "127.0.0.1", "--port", std::to_string(port_)}) {
        if (!proc_.wait_for_stderr("listening on", 60s))
            throw std::runtime_error("zcserver did not start within 60 s: " + proc_.stderr_so_far());
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

private:
    uint16_t port_;
    Process proc_;
};

// Each side's block says the kernel holds the keys its loops used, and the kernel counted the sessions.
void expect_kernel_tls(const json& r, const std::string& version) {
    SCOPED_TRACE(r["transport"].get<std::string>() + " " + r["test"].get<std::string>());
    const bool rr = r["test"] == "rr";
    for (const json* side : {&r["local"], &r["remote"]}) {
        ASSERT_TRUE(side->contains("tls")) << side->dump();
        const json& b = (*side)["tls"];
        EXPECT_EQ(b["crypto"], "kernel") << b.dump();
        EXPECT_EQ(b["version"], version) << b.dump();
        bool sends = rr || (*side)["role"] == "send";
        bool receives = rr || (*side)["role"] == "recv";
        if (sends) {
            EXPECT_NE(b["kernel_tx"], "") << b.dump();
        }
        if (receives) {
            EXPECT_NE(b["kernel_rx"], "") << b.dump();
        }
        EXPECT_TRUE(b["tls_stat_present"].get<bool>()) << b.dump();
        if (sends) {
            EXPECT_GE(b["tls_stat"]["TlsTxSw"].get<int64_t>(), 1) << b.dump();
        }
        if (receives) {
            EXPECT_GE(b["tls_stat"]["TlsRxSw"].get<int64_t>(), 1) << b.dump();
        }
        EXPECT_EQ(b["tls_stat"]["TlsDecryptError"].get<int64_t>(), 0) << b.dump();
    }
}

// TLS 1.3: kTLS receive needs OpenSSL to hand over its receive keys; where it does not, the test fails
// naming --tls-version 1.2, never running in user space instead.
void expect_tls13_runs_or_says_why(const std::vector<std::string>& target) {
    std::vector<std::string> args = target;
    args.insert(args.end(), {"-T", "ktls", "-m", "64K", "-n", "4M", "-o", "json"});
    Outcome o = run_zcperf(args, 180s);
    if (o.exit_code == 0) {
        expect_kernel_tls(first_result(report_json(o)), "TLSv1.3");
        std::cerr << "kTLS with TLS 1.3: both directions in the kernel\n";
    } else {
        // OpenSSL before 3.2: the send keys are the kernel's, the receive keys stay in user space.
        EXPECT_NE(o.err.find("send kernel, receive user space"), std::string::npos) << context(o);
        EXPECT_NE(o.err.find("--tls-version 1.2"), std::string::npos) << context(o);
        std::cerr << "kTLS with TLS 1.3 refused as expected here: " << o.err << "\n";
    }
}

}  // namespace

TEST(Ktls, StreamMaertsAndRrWithTheKernelsKeys) {
    if (env_or("RDMA_VM") != "1")
        GTEST_SKIP() << "runs in the RDMA guest (scripts/rdma_vm.sh), whose kernel has tls.ko";
    TlsModule module(local_shell);
    if (!module.why_not().empty()) GTEST_SKIP() << module.why_not();
    GuestServer server;
    json j = zcperf_report({"-H", server.address(), "-T", "ktls,ktls-sendfile", "-t", "stream,maerts", "-P", "2", "-m",
                            "64K", "-n", "8M", "--tls-version", "1.2"},
                           300s);
    ASSERT_EQ(j["results"].size(), 4u) << j.dump();
    for (const auto& r : j["results"]) {
        EXPECT_EQ(r["bytes"].get<uint64_t>(), 8u << 20);
        expect_kernel_tls(r, "TLSv1.2");
    }
    json rr = zcperf_report({"-H", server.address(), "-T", "ktls", "-t", "rr", "-m", "64", "-l", "1", "--tls-version",
                             "1.2", "--tls-cipher", "aes-256-gcm"},
                            120s);
    ASSERT_EQ(rr["results"].size(), 1u) << rr.dump();
    EXPECT_GT(rr["results"][0]["rr"]["transactions"].get<uint64_t>(), 0u);
    expect_kernel_tls(rr["results"][0], "TLSv1.2");
    expect_tls13_runs_or_says_why({"-H", server.address()});
}

TEST(Lab, KtlsAcrossTwoKernels) {
    const Lab lab;
    if (!lab.here()) GTEST_SKIP() << kNotInLab;
    TlsModule mine(local_shell), theirs([&](const std::string&cmd) { return lab.in_b(cmd, 30); });
    if (!mine.why_not().empty() || !theirs.why_not().empty())
        GTEST_SKIP() << "A: " << mine.why_not() << " B: " << theirs.why_not();
    std::vector<std::string> servers{lab.server};
    if (!lab.server_offload.empty()) servers.push_back(lab.server_offload);  // eth1, the offloading link
    for (const std::string& s : servers) {
        SCOPED_TRACE(s);
        json j = zcperf_report({"-H", s, "-T", "ktls,ktls-sendfile,tls", "-t", "stream,maerts", "-m", "64K", "-n", "8M",
                                "--tls-version", "1.2"},
                               300s);
        ASSERT_EQ(j["results"].size(), 6u) << j.dump();
        for (const auto& r : j["results"]) {
            EXPECT_EQ(r["bytes"].get<uint64_t>(), 8u << 20);
            EXPECT_NE(r["local"]["host"], r["remote"]["host"]) << "both ends in one kernel";
            if (r["transport"] != "tls") expect_kernel_tls(r, "TLSv1.2");
        }
    }
    expect_tls13_runs_or_says_why({"-H", lab.server});
}

// What the kTLS paths are for, across the lab's eth1 (the link that offloads checksums and scatter-gather, so the
// kernel copies no segment in software: on eth0 software GSO copies every encrypted byte, the same for both):
// ktls and ktls-sendfile with --explain, TLS 1.2 (both directions in the kernel on OpenSSL 3.0).
// - Each side's largest category is the kernel's crypto (the sender encrypts, the receiver decrypts).
// - The sender's data copy: sendfile over kTLS adds the file's pages to the record by reference
//   (tls_sw_sendpage, 6.1; tls_sw_sendmsg_splice from 6.5) and encrypts from them. kTLS's send() copies the
//   user's bytes into the record (sk_msg_memcopy_from_iter) only where its zero-copy path is closed (a kvec,
//   a record MSG_MORE leaves open); a full record's user pages it pins (sk_msg_zerocopy_from_iter) and
//   encrypts from, as 6.1 did here with the generic gcm(aes) and with aesni_intel's. So ktls-sendfile
//   copies less than ktls where the kernel copied for send(), and neither copies the payload where it did
//   not: the test reads which path the kernel took from the sender's stacks and asserts that path's outcome.
TEST(Lab, KtlsCryptoExplainedAndSendfileCopyOnAnOffloadingNic) {
    const Lab lab;
    if (!lab.here()) GTEST_SKIP() << kNotInLab;
    if (lab.server_offload.empty()) GTEST_SKIP() << lab.no_offload;
    TlsModule mine(local_shell), theirs([&](const std::string&cmd) { return lab.in_b(cmd, 30); });
    if (!mine.why_not().empty() || !theirs.why_not().empty())
        GTEST_SKIP() << "A: " << mine.why_not() << " B: " << theirs.why_not();
    json j = zcperf_report({"-H", lab.server_offload, "-T", "ktls,ktls-sendfile,tls", "-m", "64K", "-l", "4",
                            "--tls-version", "1.2", "--explain-hz", "999"},
                           300s);
    ASSERT_EQ(j["results"].size(), 3u) << j.dump();
    std::map<std::string, double> copy, crypto;
    std::map<std::string, std::map<std::string, uint64_t>> frames;  // the sender's samples under these frames
    for (const json& r : j["results"]) {
        const std::string t = r["transport"];
        EXPECT_NE(r["local"]["host"], r["remote"]["host"]) << "both ends in one kernel";
        EXPECT_GT(r["bytes"].get<uint64_t>(), 0u);
        copy[t] = r["local"]["explain"]["per_unit"]["copy"];
        if (t == "tls") continue;  // the yardstick: write() copies OpenSSL's records into the socket
        expect_kernel_tls(r, "TLSv1.2");
        for (const char* side : {"local", "remote"}) {
            SCOPED_TRACE(t + " " + side);
            const json& b = r[side]["tls"];  // TLS 1.2: OpenSSL 3.0 hands both directions to the kernel
            EXPECT_NE(b["kernel_tx"], "") << b.dump();
            EXPECT_NE(b["kernel_rx"], "") << b.dump();
            const json& e = r[side]["explain"];
            ASSERT_TRUE(e.value("ran", false)) << e.dump();
            const json& pu = e["per_unit"];
            std::string largest;
            for (const auto& [cat, v] : pu.items())
                if (largest.empty() || v.get<double>() > pu[largest].get<double>()) largest = cat;
            EXPECT_GT(pu["crypto"].get<double>(), 0.0) << pu.dump();
            EXPECT_EQ(largest, "crypto") << pu.dump();
        }
        crypto[t] = r["local"]["explain"]["per_unit"]["crypto"];
        for (const auto& st : r["local"]["explain"]["stacks"])
            for (const char* f : {"sk_msg_memcopy_from_iter", "sk_msg_zerocopy_from_iter", "tls_sw_sendmsg",
                                  "tls_sw_sendpage", "tls_sw_sendmsg_splice"})
                if (st[0].get<std::string>().find(f) != std::string::npos) frames[t][f] += st[1].get<uint64_t>();
        // 6.5+ splices through sendmsg (MSG_SPLICE_PAGES), its tls_sw_sendmsg_splice inlined where it is static:
        // kTLS's sendmsg under the splice into the socket is the same path.
        for (const auto& st : r["local"]["explain"]["stacks"]) {
            const std::string stack = st[0].get<std::string>();
            if (stack.find("splice_to_socket") != std::string::npos &&
                stack.find("tls_sw_sendmsg") != std::string::npos)
                frames[t]["splice_to_socket+tls_sw_sendmsg"] += st[1].get<uint64_t>();
        }
    }
    const bool send_copied = frames["ktls"]["sk_msg_memcopy_from_iter"] > 0;
    std::cout << "sender data copy / crypto, us/KB: ktls " << copy["ktls"] << " / " << crypto["ktls"]
              << ", ktls-sendfile " << copy["ktls-sendfile"] << " / " << crypto["ktls-sendfile"] << ", tls's copy "
              << copy["tls"] << "; ktls's send() "
              << (send_copied ? "copied into the record" : "encrypted from the user's pages")
              << " (samples under sk_msg_memcopy_from_iter " << frames["ktls"]["sk_msg_memcopy_from_iter"]
              << ", sk_msg_zerocopy_from_iter " << frames["ktls"]["sk_msg_zerocopy_from_iter"] << ")\n";
    EXPECT_GT(frames["ktls"]["tls_sw_sendmsg"], 0u) << "ktls's sender is not under kTLS's sendmsg";
    EXPECT_GT(frames["ktls-sendfile"]["tls_sw_sendpage"] + frames["ktls-sendfile"]["tls_sw_sendmsg_splice"] +
                  frames["ktls-sendfile"]["splice_to_socket+tls_sw_sendmsg"],
              0u)
        << "ktls-sendfile's sender is not under kTLS's splice path";
    EXPECT_EQ(frames["ktls-sendfile"]["sk_msg_memcopy_from_iter"], 0u) << "sendfile copied into the record";
    // No copy of the payload on sendfile's side: less than tls's sender copies, one copy of every record
    // (write()); 0.3-1.0 against 4.1-8.8 us/KB in the lab's runs. The same for ktls where send() took the
    // user's pages; where it copied, ktls-sendfile's copy is below ktls's (what it is for).
    EXPECT_GT(copy["tls"], 0.0);
    EXPECT_LT(copy["ktls-sendfile"], copy["tls"]) << "sender data copy, us/KB";
    if (send_copied)
        EXPECT_LT(copy["ktls-sendfile"], copy["ktls"]) << "sender data copy, us/KB";
    else
        EXPECT_LT(copy["ktls"], copy["tls"]) << "sender data copy, us/KB";
}
