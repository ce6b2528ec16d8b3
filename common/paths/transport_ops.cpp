#include "paths/transport_ops.hpp"

#include <stdexcept>

namespace zc {

// Each kind's table, in its own file.
extern const TransportOps kTcpOps;      // tcp_ops.cpp
extern const TransportOps kRsocketOps;  // rsocket_ops.cpp
extern const TransportOps kVerbsOps;    // verbs_ops.cpp
extern const TransportOps kUdpOps;      // udp_ops.cpp
extern const TransportOps kMptcpOps;    // mptcp_ops.cpp
extern const TransportOps kTlsOps;      // tls_ops.cpp
extern const TransportOps kKtlsOps;     // tls_ops.cpp

namespace {

struct KindOps {
    TransportKind kind;
    const TransportOps* ops;
};

// One line per kind. The RDMA kinds' tables exist only with rdma-core; their rows say "not built".
const KindOps kKinds[] = {
    {TransportKind::tcp, &kTcpOps},      // sockets: TCP
    {TransportKind::udp, &kUdpOps},      // UDP
    {TransportKind::mptcp, &kMptcpOps},  // MPTCP, on the tcp kind's loops
    {TransportKind::tls, &kTlsOps},      // TLS in user space (OpenSSL)
    {TransportKind::ktls, &kKtlsOps},    // kernel TLS, on the tcp kind's loops
#if ZCPERF_WITH_RDMA
    {TransportKind::rsocket, &kRsocketOps},  // RDMA
    {TransportKind::verbs, &kVerbsOps},
#endif
};

}  // namespace

const TransportOps& transport_ops(Transport t) {
    const TransportInfo& row = transport_info(t);
    for (const KindOps& k : kKinds)
        if (k.kind == row.kind) return *k.ops;
    throw std::runtime_error(std::string(row.name) + " is not in this build: " + not_built_reason(row));
}

}  // namespace zc
