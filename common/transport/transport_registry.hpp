#pragma once
// Which data paths this build has. Adding a transport = one file plus one entry here.
#include <string>
#include <string_view>
#include <vector>

namespace zc {

enum class Transport {
    tcp, tcp_sendfile, tcp_msgzc, tcp_uringzc,
    // RDMA (common/rdma/): built only with rdma-core; otherwise listed as not in this build.
    rsocket, rsocket_iomap, rdma_write, rdma_send, rdma_read
};

// The RDMA transports choose their receiver themselves (--rx does not apply) and connect through
// rsockets or rdma_cm instead of a TCP data connection.
bool is_rdma(Transport t);
bool is_verbs(Transport t);  // rdma-write, rdma-send, rdma-read: queue pairs connected with rdma_cm

// How the receiving side of a TCP stream takes the data.
enum class RxMode { copy, zerocopy, splice, trunc };

struct TransportInfo {
    Transport id;
    const char* name;
    const char* summary;
    bool built = true;  // false: known, but this build lacks what it needs (rdma-core)
};

const std::vector<TransportInfo>& transport_table();
std::vector<std::string> available_transports();  // those built in
bool transport_built(Transport t);                 // false: known, but this build lacks what it needs
// Throws std::invalid_argument listing the transports built in when the name is unknown, or
// naming what the build lacks for a known one that is not built in.
Transport transport_from_name(std::string_view name);
const char* transport_name(Transport t);

const char* rx_mode_name(RxMode m);
RxMode rx_mode_from_name(std::string_view name);  // throws std::invalid_argument listing the modes

}  // namespace zc
