#include "transport/transport_registry.hpp"

#include <stdexcept>

namespace zc {

namespace {
#if ZCPERF_WITH_RDMA
constexpr bool kRdmaBuilt = true;
#else
constexpr bool kRdmaBuilt = false;
#endif
}  // namespace

bool is_rdma(Transport t) { return t >= Transport::rsocket; }
bool is_verbs(Transport t) { return t >= Transport::rdma_write; }

const std::vector<TransportInfo>& transport_table() {
    static const std::vector<TransportInfo> table = {
        {Transport::tcp, "tcp", "TCP with copies: send() and recv() through the socket buffers"},
        {Transport::tcp_sendfile, "tcp-sendfile", "TCP, sender uses sendfile() from a memfd (netperf TCP_SENDFILE, iperf3 -Z)"},
        {Transport::tcp_msgzc, "tcp-msgzc", "TCP, sender uses send(MSG_ZEROCOPY); completions and kernel copies counted"},
        {Transport::tcp_uringzc, "tcp-uringzc", "TCP, sender uses io_uring SEND_ZC with usage reports"},
        {Transport::rsocket, "rsocket", "rsockets rsend/rrecv: the socket API over RDMA, copies through its buffers", kRdmaBuilt},
        {Transport::rsocket_iomap, "rsocket-iomap", "rsockets riowrite into the receiver's riomap'ed buffer", kRdmaBuilt},
        {Transport::rdma_write, "rdma-write", "verbs RDMA WRITE into the receiver's registered ring, progress by immediate data", kRdmaBuilt},
        {Transport::rdma_send, "rdma-send", "verbs SEND into the receiver's posted receives, credit flow control", kRdmaBuilt},
        {Transport::rdma_read, "rdma-read", "verbs RDMA READ: the receiver pulls from the sender's registered buffer", kRdmaBuilt},
    };
    return table;
}

std::vector<std::string> available_transports() {
    std::vector<std::string> out;
    for (const auto& t : transport_table())
        if (t.built) out.emplace_back(t.name);
    return out;
}

bool transport_built(Transport t) {
    for (const auto& e : transport_table())
        if (e.id == t) return e.built;
    return false;
}

Transport transport_from_name(std::string_view name) {
    std::string known;
    for (const auto& t : transport_table()) {
        if (name == t.name && t.built) return t.id;
        if (name == t.name) {
            throw std::invalid_argument("transport '" + std::string(name) +
                                        "' is not in this build: it was built without rdma-core (libibverbs, "
                                        "librdmacm); on Debian: apt-get install libibverbs-dev librdmacm-dev, "
                                        "then reconfigure and rebuild");
        }
        if (!t.built) continue;
        known += known.empty() ? "" : ", ";
        known += t.name;
    }
    throw std::invalid_argument("unknown transport '" + std::string(name) + "'; this build has: " + known);
}

const char* transport_name(Transport t) {
    for (const auto& e : transport_table())
        if (e.id == t) return e.name;
    return "?";
}

namespace {
constexpr const char* kRxNames[] = {"copy", "zerocopy", "splice", "trunc"};
}

const char* rx_mode_name(RxMode m) { return kRxNames[static_cast<int>(m)]; }

RxMode rx_mode_from_name(std::string_view name) {
    for (int i = 0; i < 4; ++i)
        if (name == kRxNames[i]) return static_cast<RxMode>(i);
    throw std::invalid_argument("unknown receive mode '" + std::string(name) +
                                "'; use copy (recv), zerocopy (TCP_ZEROCOPY_RECEIVE), splice (to a pipe, "
                                "discarded) or trunc (MSG_TRUNC, discarded)");
}

}  // namespace zc
