// The tls and ktls kinds' operations tables (docs/tls.md). Both take the tcp kind's sockets (its listener,
// the token, connect) and run OpenSSL's handshake on each data connection before the test: the client
// offers the version and cipher asked for, the server takes any of the three. Then
//  - tls: OpenSSL's own loops, SSL_write/SSL_read (tls/tls_loops.hpp): copy and crypto in user space;
//  - ktls: OpenSSL hands the keys to the kernel (SSL_OP_ENABLE_KTLS) and the tcp kind's loops run as they
//    are, send()/recv() or sendfile() (ktls-sendfile: the row's send_buffer), the kernel encrypting.
//    Where the kernel lacks the TLS ULP, or OpenSSL did not hand over a direction the test needs, the
//    test fails and says why: never a silent fall back to user space.
// Each side's block (tls/tls_report.hpp) is read at its end from its sessions and the kernel.
#include <exception>
#include <stdexcept>
#include <thread>

#include "options/kind_options.hpp"
#include "tcp/tcp_ops.hpp"
#include "kind/spec_rules.hpp"
#include "kind/kind_module.hpp"
#include "system/topology.hpp"
#include "tls/tls_connection.hpp"
#include "tls/tls_kernel.hpp"
#include "tls/tls_loops.hpp"
#include "tls/tls_offload.hpp"
#include "tls/tls_options.hpp"
#include "tls/tls_report.hpp"
#include "tls/tls_session.hpp"

namespace zc {

namespace {

const TlsConnection& session_of(const DataConnection& conn) {
    const auto* s = kind_connection_if<TlsConnection>(conn);
    if (!s || !s->ssl) throw std::logic_error("a tls path needs a data connection with its TLS session");
    return *s;
}

void require_ktls() {
    if (std::string why = ktls_unavailable(); !why.empty()) throw std::runtime_error(why);
}

// The directions this side's loops use: both for a message test (rr, msgrate), else its role's.
bool sends(const HalfSpec& h, Role role) { return is_message_test(h.test) || role == Role::send; }
bool receives(const HalfSpec& h, Role role) { return is_message_test(h.test) || role == Role::recv; }

// Why one direction's keys are not the kernel's: OpenSSL before 3.2 never hands over TLS 1.3 receive keys;
// a kernel without the cipher's AEAD (/proc/crypto) refuses them; else its tls module refused them.
std::string why_not_kernel(const TlsAgreed& a, bool tx) {
    if (!tx && a.version == "TLSv1.3" && !a.openssl_ktls_recv)
        return "OpenSSL releases before 3.2 hand the kernel TLS 1.3 send keys only, receive stays in user space: "
               "try --tls-version 1.2, or -T tls";
    if (std::string aead = ktls_aead_missing(a.cipher); !aead.empty()) return aead + "; or run -T tls";
    return std::string("OpenSSL did not hand the keys to the kernel (BIO_get_ktls_") + (tx ? "send " : "recv ") +
           std::to_string(tx ? a.openssl_ktls_send : a.openssl_ktls_recv) +
           "), or the kernel's tls module refused them (chacha20-poly1305 needs Linux 5.11): try --tls-cipher "
           "aes-128-gcm, or -T tls";
}

// kTLS: the directions this side's loops use must be the kernel's, as the kernel itself reads them back.
std::string ktls_missing(int fd, ssl_st* ssl, const HalfSpec& h, Role role) {
    const TlsAgreed a = tls_agreed(ssl);
    const bool tx = read_ktls(fd, true).in_force, rx = read_ktls(fd, false).in_force;
    const std::string what = " after the " + a.version + " " + a.cipher + " handshake (getsockopt SOL_TLS: send " +
                             (tx ? "kernel" : "user space") + ", receive " + (rx ? "kernel" : "user space") + "): ";
    if (sends(h, role) && !tx) return "kTLS send is not in force" + what + why_not_kernel(a, true);
    if (receives(h, role) && !rx) return "kTLS receive is not in force" + what + why_not_kernel(a, false);
    return "";
}

// --tls-offload is the client's (kind_options): the directions this side runs must be the NIC's to offer.
bool offload_asked(const HalfSpec& h) { return h.kind_options.contains(kTlsOffloadKey); }

// After the handshake: a sendfile sender asks that the NIC read the file's pages as they are.
std::string offload_asked_for(int fd, const HalfSpec& h, Role role) {
    std::string what = interface_of_socket(fd) + ": " + std::string(sends(h, role) ? kTlsTxOffload : "") +
                       (sends(h, role) && receives(h, role) ? ", " : "") + (receives(h, role) ? kTlsRxOffload : "") +
                       " on";
    if (transport_info(h.transport).send_buffer == SendBuffer::file && sends(h, role))  // ktls-sendfile
        what += "; TLS_TX_ZEROCOPY_RO " + set_tx_zerocopy_ro(fd);
    return what;
}

// One connection's handshake, wrapped with what the side read before it.
std::unique_ptr<TlsConnection> secured(UniqueFd fd, const HalfSpec& h, Role role, bool client, bool ktls,
                                       const TlsStat& before) {
    auto conn = std::make_unique<TlsConnection>();
    conn->before = before;
    const bool offload = client && ktls && offload_asked(h);
    if (offload) {
        if (std::string why = tls_offload_refusal(fd.get(), sends(h, role), receives(h, role)); !why.empty())
            throw std::runtime_error(why);
    }
    conn->ssl = client ? tls_client_handshake(fd.get(), tls_choice(h.kind_options), ktls)
                       : tls_server_handshake(fd.get(), ktls);
    if (ktls) {
        if (std::string why = ktls_missing(fd.get(), conn->ssl.get(), h, role); !why.empty())
            throw std::runtime_error(why);
        if (read_ktls(fd.get(), false).in_force) conn->rx_expect_no_pad = set_expect_no_pad(fd.get());
        if (offload) conn->offload = offload_asked_for(fd.get(), h, role);
    }
    conn->fd = std::move(fd);
    return conn;
}

// The server's handshakes side by side: the client runs its streams' in its own order, which need not be
// the order their connections were accepted in. Each is bounded by the socket's receive timeout.
std::vector<DataConnection> secure_all(std::vector<DataConnection> plain, const HalfSpec& h, Role role, bool client,
                                       bool ktls) {
    const TlsStat before = read_tls_stat();
    std::vector<std::unique_ptr<TlsConnection>> done(plain.size());
    std::vector<std::exception_ptr> failed(plain.size());
    auto one = [&](size_t i) {
        try {
            done[i] = secured(std::move(std::get<UniqueFd>(plain[i])), h, role, client, ktls, before);
        } catch (...) {
            failed[i] = std::current_exception();
        }
    };
    if (client) {
        for (size_t i = 0; i < plain.size(); ++i) one(i);
    } else {
        std::vector<std::jthread> threads;
        for (size_t i = 0; i < plain.size(); ++i) threads.emplace_back(one, i);
    }
    for (auto& f : failed)
        if (f) std::rethrow_exception(f);
    std::vector<DataConnection> out;
    for (auto& s : done) out.emplace_back(KindConnection(std::move(s)));
    return out;
}

class TlsListener final : public KindListener {
public:
    TlsListener(std::unique_ptr<KindListener> plain, const HalfSpec& half, Role role, bool ktls)
        : plain_(std::move(plain)), half_(half), role_(role), ktls_(ktls) {}
    uint16_t port() const override { return plain_->port(); }
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped) override {
        return secure_all(plain_->accept(token, deadline, stopped), half_, role_, false, ktls_);
    }

private:
    std::unique_ptr<KindListener> plain_;  // the TCP listener beneath TLS
    HalfSpec half_;
    Role role_;
    bool ktls_;
};

template <bool Ktls>
std::unique_ptr<KindListener> listen(const HalfSpec& half, Role role, const std::string& bind_address) {
    if (Ktls) require_ktls();
    return std::make_unique<TlsListener>(kTcpOps.listen(half, role, bind_address), half, role, Ktls);
}

template <bool Ktls>
std::vector<DataConnection> connect(const HalfSpec& half, Role role, const PeerAddress& peer, uint64_t token) {
    if (Ktls) require_ktls();
    return secure_all(kTcpOps.connect(half, role, peer, token), half, role, true, Ktls);
}

void require_runnable(const HalfSpec& h, Role role) {
    if (std::string why = spec_problem(h, role); !why.empty()) throw std::runtime_error(why);
}

void make_send(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    require_runnable(h, Role::send);
    loop.emplace<TlsSender>(session_of(conn).ssl.get(), tcp_fd(conn), h.message_size, h.alignment);
}

void make_recv(StreamLoop& loop, const HalfSpec& h, DataConnection& conn) {
    require_runnable(h, Role::recv);
    loop.emplace<TlsReceiver>(session_of(conn).ssl.get(), h.message_size, h.alignment);
}

void make_exchange(StreamLoop& loop, const HalfSpec& h, Role role, DataConnection& conn, LatencyHistogram& rtt) {
    require_runnable(h, role);  // rr only (the rows' tests)
    ssl_st* ssl = session_of(conn).ssl.get();
    if (role == Role::send)
        loop.emplace<TlsRrInitiator>(ssl, tcp_fd(conn), h.message_size, h.alignment, rtt, h.side.buffer);
    else
        loop.emplace<TlsRrResponder>(ssl, tcp_fd(conn), h.message_size, h.alignment, h.side.buffer);
}

template <bool Ktls>
std::string name_of_path(const HalfSpec& h, Role role) {
    if (role == Role::send || is_message_test(h.test)) return transport_name(h.transport);
    return Ktls ? "ktls recv" : "tls SSL_read";
}

uint64_t bytes_per_stream(const HalfSpec& h, Role role) {
    return is_message_test(h.test) ? message_test_bytes(h, role) : h.message_size;
}

std::string kernel_direction(int fd, bool tx) {
    KtlsDirection d = read_ktls(fd, tx);
    return d.in_force ? d.cipher + " " + d.version : "";
}

template <bool Ktls>
void read_block(const HalfSpec& h, Role role, std::span<const KindStream> streams, SideResult& r) {
    write_tcp_block(h, role, streams, r);  // the TCP socket underneath
    if (streams.empty()) return;
    const TlsConnection& first = session_of(*streams.front().conn);
    const int fd = tcp_fd(*streams.front().conn);
    const TlsAgreed a = tls_agreed(first.ssl.get());
    const TlsStat after = read_tls_stat();
    TlsSideReport report{.crypto = Ktls ? TlsSideReport::kKernelCrypto : "openssl",
                         .version = a.version,
                         .cipher = a.cipher,
                         .record_payload = static_cast<uint32_t>(a.max_record_payload),
                         .openssl_ktls_send = a.openssl_ktls_send,
                         .openssl_ktls_recv = a.openssl_ktls_recv,
                         .kernel_tx = kernel_direction(fd, true),
                         .kernel_rx = kernel_direction(fd, false),
                         .rx_expect_no_pad = first.rx_expect_no_pad,
                         .offload = first.offload,
                         .sessions = static_cast<uint32_t>(streams.size()),
                         .tls_stat_present = !after.empty(),
                         .tls_stat = tls_stat_delta(first.before, after),
                         .note = streams.size() > 1 ? "the first stream's session shown; every stream ran the same "
                                                      "handshake"
                                                    : ""};
    r.kinds[tls_block_type().key] = to_json(report);
}

TransportOps tls_ops() {
    TransportOps ops = kTcpOps;  // the read-backs of the TCP socket underneath (buffers, TCP_INFO)
    ops.listen = listen<false>;
    ops.connect = connect<false>;
    ops.make_send = make_send;
    ops.make_recv = make_recv;
    ops.make_exchange = make_exchange;
    ops.path_name = name_of_path<false>;
    ops.buffer_bytes = bytes_per_stream;
    ops.connect_latency = nullptr;
    ops.kind_block = read_block<false>;
    return ops;
}

// kTLS: the tcp kind's loops on the socket the kernel now encrypts (tcp_fd reads a session's socket).
TransportOps ktls_ops() {
    TransportOps ops = kTcpOps;
    ops.listen = listen<true>;
    ops.connect = connect<true>;
    ops.path_name = name_of_path<true>;
    ops.connect_latency = nullptr;
    ops.kind_block = read_block<true>;
    return ops;
}

// Its command-line options, here so that every program that can run the kind (zcperf, zcperf-mpi) offers them.

}  // namespace

const TransportOps kTlsOps = tls_ops();
const TransportOps kKtlsOps = ktls_ops();

extern const KindDescription kind_description_tls;  // tls_kind.cpp
extern const KindModule kind_module_tls;
namespace {
const KindTable kTlsTables[] = {{"tls", &kTlsOps}, {"ktls", &kKtlsOps}};  // kOpenSslTls, kKernelTls
}  // namespace
const KindOptionGroup* const kTlsOptionGroups[] = {&tls_option_group()};
const KindModule kind_module_tls{
    .description = &kind_description_tls, .tables = kTlsTables, .options = kTlsOptionGroups};

}  // namespace zc
