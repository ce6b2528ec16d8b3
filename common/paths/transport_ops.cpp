#include "paths/transport_ops.hpp"

#include <algorithm>
#include <iterator>
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
    const char* name;  // the kind in --rx's help
};

// One line per kind. The RDMA kinds' tables exist only with rdma-core; their rows say "not built".
const KindOps kKinds[] = {
    {TransportKind::tcp, &kTcpOps, "tcp"},        // sockets: TCP
    {TransportKind::udp, &kUdpOps, "udp"},        // UDP
    {TransportKind::mptcp, &kMptcpOps, "mptcp"},  // MPTCP, on the tcp kind's loops
    {TransportKind::tls, &kTlsOps, "tls"},        // TLS in user space (OpenSSL)
    {TransportKind::ktls, &kKtlsOps, "ktls"},     // kernel TLS, on the tcp kind's loops
#if ZCPERF_WITH_RDMA
    {TransportKind::rsocket, &kRsocketOps, "rsocket"},  // RDMA
    {TransportKind::verbs, &kVerbsOps, "verbs"},
#endif
};

constexpr RxModeRow kCopyOnly{RxMode::copy, "recv"};

// "copy, zerocopy or trunc": the modes a row's kind takes.
std::string modes_of(const TransportInfo& t) {
    std::span<const RxModeRow> rows = transport_ops(t.id).rx_modes;
    if (rows.empty()) return "copy";
    std::string out;
    for (size_t i = 0; i < rows.size(); ++i)
        out += (i == 0 ? "" : i + 1 == rows.size() ? " or " : ", ") + std::string(rx_mode_name(rows[i].mode));
    return out;
}

}  // namespace

const TransportOps& transport_ops(Transport t) {
    const TransportInfo& row = transport_info(t);
    for (const KindOps& k : kKinds)
        if (k.kind == row.kind) return *k.ops;
    throw std::runtime_error(std::string(row.name) + " is not in this build: " + not_built_reason(row));
}

const RxModeRow* rx_mode_row(const TransportInfo& t, RxMode mode) {
    for (const RxModeRow& r : transport_ops(t.id).rx_modes)
        if (r.mode == mode) return &r;
    return mode == RxMode::copy ? &kCopyOnly : nullptr;
}

std::string rx_mode_help() {
    // Kinds that share one table of modes (tls and ktls run tcp's receivers) are named together, once.
    auto same_modes = [](const KindOps& a, const KindOps& b) {
        return a.ops->rx_modes.data() == b.ops->rx_modes.data() && a.ops->rx_modes.size() == b.ops->rx_modes.size();
    };
    std::string out;
    for (const KindOps* k = std::begin(kKinds); k != std::end(kKinds); ++k) {
        if (k->ops->rx_modes.empty() ||
            std::any_of(std::begin(kKinds), k, [&](const KindOps& e) { return same_modes(e, *k); }))
            continue;
        out += out.empty() ? "" : "; ";
        std::string names;
        for (const KindOps* e = k; e != std::end(kKinds); ++e)
            if (same_modes(*e, *k)) names += (names.empty() ? "" : ", ") + std::string(e->name);
        out += names + ":";
        for (const RxModeRow& r : k->ops->rx_modes)
            out +=
                std::string(&r == &k->ops->rx_modes.front() ? " " : ", ") + rx_mode_name(r.mode) + " (" + r.how + ")";
    }
    return out + "; the others: copy";
}

std::vector<std::string> rx_mode_choices() {
    std::vector<std::string> out;
    for (const KindOps& k : kKinds) {
        for (const RxModeRow& r : k.ops->rx_modes)
            if (std::find(out.begin(), out.end(), rx_mode_name(r.mode)) == out.end())
                out.push_back(rx_mode_name(r.mode));
    }
    return out;
}

std::string rx_mode_problem(const HalfSpec& half) {
    const TransportInfo& t = transport_info(half.transport);
    if (rx_mode_row(t, half.rx)) return "";
    return std::string(t.name) + " receives with --rx " + modes_of(t) + "; --rx " + rx_mode_name(half.rx) +
           " is for -T " + transport_names_where([&](const TransportInfo& r) { return rx_mode_row(r, half.rx); });
}

}  // namespace zc
