#pragma once
// The tls and ktls kinds' connection: the TCP socket and the OpenSSL session over it, with what the side
// read before the handshake. Held by the data connection as a KindConnection (core/data_connection.hpp);
// tcp_fd() is its socket, so the tcp kind's loops (ktls) and read-backs run on it as they are.
#include <sys/socket.h>

#include <string>

#include "core/unique_fd.hpp"
#include "tls/tls_kernel.hpp"
#include "tls/tls_session.hpp"

namespace zc {

struct TlsConnection {
    UniqueFd fd;
    TlsSessionPtr ssl;             // after fd: the session is freed before the socket closes
    TlsStat before;                // /proc/net/tls_stat before this side's handshakes
    std::string rx_expect_no_pad;  // what TLS_RX_EXPECT_NO_PAD gave ("" not asked)
    std::string offload;           // --tls-offload: what was checked and asked ("" not asked)

    int tcp_fd() const { return fd.get(); }
    void interrupt() { ::shutdown(fd.get(), SHUT_RDWR); }  // wakes a thread blocked in SSL_read/SSL_write
};

}  // namespace zc
