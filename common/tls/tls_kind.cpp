// The tls kind: OpenSSL's loops (tls, table 0) and the kernel's crypto on the tcp kind's loops (ktls,
// table 1), after OpenSSL's handshake on TCP sockets; its report block.
#include "core/kind_description.hpp"
#include "tls/tls_options.hpp"
#include "tls/tls_report.hpp"

namespace zc {

namespace {
constexpr const char* kTlsMessages =
    "each small message would be a TLS record of its own, one SSL call or kernel encryption each: rr measures "
    "that per transaction. Use -t rr";

constexpr TransportInfo kRows[] = {
    {.name = "tls",
     .summary = "TLS in user space: OpenSSL's SSL_write/SSL_read, the copy and the crypto in the process",
     .tests = kStreams | bit(Workload::rr),
     .no_message_tests = kTlsMessages,
     .buffers = kHost,
     .message_buffers = kHost,
     .tcp_sockets = true,
     .tcp_segments = true},
    {.name = "ktls",
     .summary = "kernel TLS: OpenSSL's handshake, then send()/recv() with the kernel encrypting (TLS_TX/TLS_RX)",
     .table = kKernelTls,
     .tests = kStreams | bit(Workload::rr),
     .no_message_tests = kTlsMessages,
     .buffers = kHost,
     .message_buffers = kHost,
     .tcp_sockets = true,
     .tcp_segments = true},
    {.name = "ktls-sendfile",
     .summary = "kernel TLS, sender uses sendfile() from a memfd: encrypted from the file's pages, no user copy",
     .table = kKernelTls,
     .tests = kStreams,
     .buffers = kHost,
     .send_buffer = SendBuffer::file,
     .tcp_sockets = true,
     .tcp_segments = true}};

}  // namespace

extern const KindDescription kind_description_tls;
constexpr KindDescription kind_description_tls{
    .name = "tls",
    .rows = kRows,
    .block = tls_block_type,
};

}  // namespace zc
