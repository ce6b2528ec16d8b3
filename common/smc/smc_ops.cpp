// The smc kind's operations table: the tcp kind's sockets and loops on AF_SMC sockets (SMCPROTO_SMC for IPv4,
// SMCPROTO_SMC6 for IPv6), refused before the test where this kernel has no SMC sockets, and its own block:
// each data connection as smc_diag saw it (SMC-R, SMC-D or TCP fallback, and why) and the host's SMC counters
// over the test. --require-smc makes a fallback an error at connect, before anything is measured.
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/unique_fd.hpp"
#include "kind/kind_module.hpp"
#include "options/kind_options.hpp"
#include "smc/smc_diag.hpp"
#include "smc/smc_report.hpp"
#include "smc/smc_stats.hpp"
#include "tcp/tcp_ops.hpp"

#ifndef AF_SMC
#define AF_SMC 43  // linux/socket.h's; glibc names it since 2.28
#endif

namespace zc {

namespace {

constexpr StreamSocket kSmcSocket{.domain = AF_SMC, .protocol = kSmcProtoSmc, .protocol6 = kSmcProtoSmc6};
constexpr const char* kRequireSmcKey = "require-smc";  // TestParams::kind_options: the client's alone

void require_smc() {
    if (std::string why = smc_unavailable_reason(); !why.empty()) throw std::runtime_error(why);
}

// A data connection of the kind: its AF_SMC socket, and the host's SMC counters read before its side's connections
// were made (the handshakes and fallbacks happen at connect and accept, before the measured interval).
struct SmcSocket {
    UniqueFd fd;
    std::shared_ptr<const SmcStats> before;  // the side's reading, shared by its connections

    int tcp_fd() const { return fd.get(); }
    void interrupt() { ::shutdown(fd.get(), SHUT_RDWR); }  // wakes a thread blocked in send or recv
};

std::vector<DataConnection> as_smc_sockets(std::vector<DataConnection> conns,
                                           const std::shared_ptr<const SmcStats>& before) {
    std::vector<DataConnection> out;
    for (DataConnection& c : conns)
        out.emplace_back(make_kind_connection<SmcSocket>(std::move(std::get<UniqueFd>(c)), before));
    return out;
}

class SmcListener final : public KindListener {
public:
    SmcListener(const HalfSpec& half, const std::string& bind_address)
        : before_(std::make_shared<const SmcStats>(read_smc_stats())),
          tcp_(listen_stream_sockets(half, bind_address, kSmcSocket, false)) {}
    uint16_t port() const override { return tcp_->port(); }
    std::vector<DataConnection> accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped) override {
        return as_smc_sockets(tcp_->accept(token, deadline, stopped), before_);
    }

private:
    std::shared_ptr<const SmcStats> before_;
    std::unique_ptr<KindListener> tcp_;
};

std::unique_ptr<KindListener> listen(const HalfSpec& half, Role, const std::string& bind_address) {
    require_smc();
    return std::make_unique<SmcListener>(half, bind_address);
}

// Why --require-smc refuses these connections ("" when every one runs SMC-R or SMC-D). connect() returns once
// SMC's handshake has decided (the token written after it), so the dump has each connection's mode.
std::string fallback_refusal(const std::vector<DataConnection>& conns) {
    const SmcDiagDump dump = dump_smc_connections();
    if (!dump.error.empty()) return "--require-smc cannot tell whether SMC engaged: " + dump.error;
    for (size_t i = 0; i < conns.size(); ++i) {
        const SmcConnection* c = find_smc_connection(dump.connections, socket_inode(tcp_fd(conns[i])));
        const std::string stream = "stream " + std::to_string(i);
        if (!c) return "--require-smc: " + stream + "'s connection is not in smc_diag's dump";
        if (c->fell_back())
            return "--require-smc: " + stream + " fell back to TCP: " + smc_code_text(c->reason) +
                   (c->peer_diagnosis ? "; the peer's diagnosis: " + smc_code_text(c->peer_diagnosis) : "");
    }
    return "";
}

std::vector<DataConnection> connect(const HalfSpec& half, Role, const PeerAddress& peer, uint64_t token) {
    require_smc();
    auto before = std::make_shared<const SmcStats>(read_smc_stats());
    std::vector<DataConnection> conns = as_smc_sockets(connect_stream_sockets(half, peer, token, kSmcSocket), before);
    if (half.kind_options.contains(kRequireSmcKey))
        if (std::string why = fallback_refusal(conns); !why.empty()) throw std::runtime_error(why);
    return conns;
}

// Each stream's connection as smc_diag saw it at the end (crr's server holds listeners: nothing there), and the
// counters since before the side's connections. A fallback is said first: its figures are TCP's.
void read_block(const HalfSpec& h, Role role, std::span<const KindStream> streams, SideResult& r) {
    write_tcp_block(h, role, streams, r);  // its sockets' settings (TCP_INFO would be the handshake socket's)
    SmcSideReport report;
    const SmcDiagDump dump = dump_smc_connections();
    report.note = dump.error;
    for (const KindStream& s : streams) {
        const int fd = tcp_fd(*s.conn);
        if (fd < 0 || is_listener(fd)) continue;
        if (const SmcConnection* c = find_smc_connection(dump.connections, socket_inode(fd)))
            report.connections.push_back(*c);
        else if (dump.error.empty())
            report.note = "a stream's connection was not in smc_diag's dump (closed before the end?)";
    }
    const SmcSocket* first = streams.empty() ? nullptr : kind_connection_if<SmcSocket>(*streams.front().conn);
    if (first && first->before) report.stats = delta(*first->before, read_smc_stats());
    if (is_connection_test(h.test))
        report.note += std::string(report.note.empty() ? "" : "; ") + kCrrFirstConnectionsOnly;
    if (std::string fell_back = smc_fallback_sentence(report); !fell_back.empty()) r.warnings.push_back(fell_back);
    r.kinds[smc_block_type().key] = to_json(report);
}

// Not TCP_INFO, which would be SMC's handshake socket's (its data goes through the RMBs); the block's counters count
// from before the side's connections (SmcSocket::before).
TransportOps smc_ops() { return tcp_loops_ops({listen, connect, nullptr, read_block}); }
const TransportOps kSmcOps = smc_ops();

bool smc_kind(const TransportInfo& row) { return row_of_kind(row, "smc"); }

OptionRows smc_rows(const KindOptionTargets& to) {
    KindOptionValues& values = to.values;
    return {action("--require-smc",
                   "-T smc: refuse the test when any data connection falls back to TCP (smc_diag says which and "
                   "why, e.g. 0x03030000 no SMC device), instead of measuring TCP under SMC's name",
                   [&values] { values[kRequireSmcKey] = "on"; })};
}

// Before any test: -T smc on a client whose kernel has no SMC sockets is refused with what to load (a server's
// kernel is its own: it refuses at set-up, in the same words).
void check_smc_run(const KindOptionRun& run) {
    const bool asked = std::any_of(run.transports.begin(), run.transports.end(),
                                   [](Transport t) { return smc_kind(transport_info(t)); });
    if (!asked) return;
    if (std::string why = smc_unavailable_reason(); !why.empty()) throw std::invalid_argument(why);
}

const KindOptionGroup kSmcOptionGroup{
    .title = "SMC OPTIONS", .rows = smc_rows, .takes = smc_kind, .check = check_smc_run};
const KindTable kSmcTables[] = {{"smc", &kSmcOps}};

}  // namespace

extern const KindDescription kind_description_smc;  // smc_kind.cpp
extern const KindModule kind_module_smc;
const KindOptionGroup* const kSmcOptionGroups[] = {&kSmcOptionGroup};
const KindModule kind_module_smc{
    .description = &kind_description_smc, .tables = kSmcTables, .options = kSmcOptionGroups};

}  // namespace zc
